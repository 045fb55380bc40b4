package dev.baton.sale;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * One instance of the sale service as a separate JVM: {@code java -jar target/baton-sale-demo.jar}, the jar that
 * {@code package} built, on a free port, its output in {@code target/<name>.log}. Closing it stops it as an operator
 * would (SIGTERM, so the context closes), and kills it if it has not exited within 30 s. The instance does not see
 * the test's {@code SPRING_DATA_REDIS_*} environment variables: it uses the Redis its arguments name, or else its
 * embedded one.
 */
final class SaleInstance implements AutoCloseable {

    /** Two JVMs starting on a loaded two-core machine can be slow; this only bounds a broken start. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final Process process;
    private final Path log;
    private final URI base;

    private SaleInstance(String name, Process process, Path log, int port) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    /**
     * Starts an instance and waits until its health endpoint says UP.
     *
     * @param name a name for its log file
     * @param args Spring Boot arguments besides the port
     * @return the running, healthy instance
     */
    static SaleInstance start(String name, String... args) {
        int port = freePort();
        Path target = Path.of(System.getProperty("basedir", "."), "target");
        Path log = target.resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", target.resolve("baton-sale-demo.jar").toString(), "--server.port=" + port));
        command.addAll(List.of(args));
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            // Where Redis is, the tests say with arguments; a SPRING_DATA_REDIS_* of the developer's shell must not.
            builder.environment().keySet().removeIf(key -> key.startsWith("SPRING_DATA_REDIS_"));
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        SaleInstance instance = new SaleInstance(name, process, log, port);
        try {
            instance.awaitHealthy();
        } catch (RuntimeException | Error e) {
            instance.close();
            throw e;
        }
        return instance;
    }

    private void awaitHealthy() {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        await(name + " to report UP on /actuator/health").atMost(STARTUP_TIMEOUT).pollInterval(Duration.ofMillis(500))
                .failFast(name + " exited while starting; see " + log, () -> !process.isAlive())
                .ignoreExceptionsInstanceOf(IOException.class)
                .until(() -> {
                    HttpResponse<String> response = client.send(HttpRequest.newBuilder(base.resolve("/actuator/health"))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                    return response.statusCode() == 200 && response.body().contains("\"status\":\"UP\"");
                });
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    /** @return {@code http://127.0.0.1:<port>} */
    URI base() {
        return base;
    }

    /** @return the process, while it runs */
    Process process() {
        return process;
    }

    /** @return everything the instance has printed so far */
    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
    }

    /** Stops the instance with SIGTERM and waits for it to exit; kills it if it does not within 30 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + " at " + base;
    }
}

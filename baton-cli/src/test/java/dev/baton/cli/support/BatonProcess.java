package dev.baton.cli.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@code baton} jar run as a separate process, as an operator runs it: {@code java -jar baton.jar args...}
 * with an environment of the test's choosing (none of the test JVM's {@code BATON_*} variables leak in). Output is
 * collected on threads of its own so that a chatty process never blocks on a full pipe.
 */
public final class BatonProcess implements AutoCloseable {
    /** The jar that {@code mvn package} built (failsafe passes its path). */
    public static final Path JAR = Path.of(System.getProperty("baton.cli.jar", "target/baton.jar"));

    private final Process process;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Thread outReader;
    private final Thread errReader;

    private BatonProcess(Process process) {
        this.process = process;
        this.outReader = pump(process.getInputStream(), out);
        this.errReader = pump(process.getErrorStream(), err);
    }

    /**
     * Starts {@code baton args...}.
     *
     * @param env  extra environment variables (e.g. {@code BATON_REDIS_PASSWORD})
     * @param args the command line
     * @return the running process
     */
    public static BatonProcess start(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-jar");
        command.add(JAR.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> environment = pb.environment();
        environment.keySet().removeIf(k -> k.startsWith("BATON_") && !k.equals("BATON_REDIS_SERVER"));
        environment.putAll(env);
        try {
            return new BatonProcess(pb.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code baton args...} to its end (at most two minutes).
     *
     * @param env  extra environment variables
     * @param args the command line
     * @return the finished process
     */
    public static BatonProcess run(Map<String, String> env, String... args) {
        BatonProcess p = start(env, args);
        p.waitFor(Duration.ofMinutes(2));
        return p;
    }

    /** {@link #run(Map, String...)} with no extra environment. */
    public static BatonProcess run(String... args) {
        return run(new HashMap<>(), args);
    }

    /**
     * Waits for the process to end.
     *
     * @param bound how long at most
     * @return its exit code
     * @throws AssertionError if it is still running after {@code bound} (it is then killed)
     */
    public int waitFor(Duration bound) {
        try {
            if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("baton still running after " + bound + "; stdout: " + stdout()
                        + "; stderr: " + stderr());
            }
            outReader.join(10_000);
            errReader.join(10_000);
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The exit code of a finished process. */
    public int exitCode() {
        return process.exitValue();
    }

    /** What it printed on stdout so far. */
    public String stdout() {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    /** What it printed on stderr so far. */
    public String stderr() {
        synchronized (err) {
            return err.toString(StandardCharsets.UTF_8);
        }
    }

    /** The process, to signal it or read its pid. */
    public Process process() {
        return process;
    }

    /**
     * Sends a signal with {@code kill -s}.
     *
     * @param signal e.g. {@code TERM}, {@code INT}
     */
    public void signal(String signal) {
        try {
            new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "exit " + (process.isAlive() ? "(running)" : process.exitValue()) + "\n--- stdout\n" + stdout()
                + "--- stderr\n" + stderr();
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static Thread pump(InputStream in, ByteArrayOutputStream sink) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (sink) {
                        sink.write(buf, 0, n);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "baton-process-output");
        t.setDaemon(true);
        t.start();
        return t;
    }
}

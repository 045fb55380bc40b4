package dev.baton.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM running a {@code main} class from the test class path, for tests that need real processes (mutual
 * exclusion across JVMs, kill -9, SIGSTOP). Its stdout lines are queued for {@link #awaitLine}; stdin takes commands.
 * Its stderr (its log lines) goes to a file of its own under {@code target/child-jvms}, named in {@link #awaitLine}'s
 * failures: inherited, it would bypass the test output redirection and reach the build's console.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> allLines = java.util.Collections.synchronizedList(new ArrayList<>());
    private final PrintWriter stdin;
    private final Path stderr;

    private ChildJvm(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    allLines.add(line);
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "child-" + process.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    public static ChildJvm start(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        Path logs = Files.createDirectories(Path.of("target", "child-jvms"));
        Path stderr = Files.createTempFile(logs, main.getSimpleName() + "-", ".log");
        return new ChildJvm(new ProcessBuilder(command).redirectError(stderr.toFile()).start(), stderr);
    }

    /** Waits for the next stdout line starting with {@code prefix} (other lines are skipped). */
    public String awaitLine(String prefix, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new AssertionError("child " + process.pid() + " printed no line starting with '" + prefix
                        + "' within " + timeoutSeconds + " s (alive=" + process.isAlive() + "); output: " + allLines
                        + "; its stderr: " + stderr.toAbsolutePath());
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /** Every stdout line so far, in order, including those {@link #awaitLine} consumed or skipped. */
    public List<String> output() {
        synchronized (allLines) {
            return List.copyOf(allLines);
        }
    }

    public void send(String line) {
        stdin.println(line);
    }

    public long pid() {
        return process.pid();
    }

    public Process process() {
        return process;
    }

    public int awaitExit(long timeoutSeconds) throws InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + process.pid() + " did not exit within " + timeoutSeconds
                    + " s; output: " + allLines);
        }
        return process.exitValue();
    }

    public void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (IOException | InterruptedException ignored) {
                // best effort; destroyForcibly below works on a stopped process too
            }
            process.destroyForcibly();
        }
    }
}

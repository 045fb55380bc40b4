package dev.baton.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The parent's handle on one {@link DemoWorker} JVM: starts it, follows its stdout messages, keeps the tail of its
 * stderr for the report, and kills it. Thread-safe: reader threads update it while the parent polls.
 */
final class WorkerProcess {

    private static final int TAIL_LINES = 15;
    private static final int KILL_WAIT_SECONDS = 5;
    // Workers are I/O bound and short-lived: a small heap and the C1 compiler alone make them start faster.
    private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /** System properties of slf4j-simple: a log level the user sets for the demo should hold in its workers too. */
    private static final String LOGGING_PROPERTIES = "org.slf4j.simpleLogger.";

    private final int id;
    private final Process process;
    private final Deque<String> outputTail = new ArrayDeque<>();
    private final CountDownLatch streamsClosed = new CountDownLatch(2);
    private volatile boolean ready;
    private volatile int incremented;
    private volatile int acquired;
    private volatile long lastToken;
    private volatile UnlockedReport unlockedReport;
    private volatile long unlockedReportNanos;
    private volatile WorkerReport report;
    private volatile long reportNanos;

    private WorkerProcess(int id, Process process) {
        this.id = id;
        this.process = process;
    }

    /**
     * Starts worker {@code id} with the same Java and class path as this JVM, which works both from the shaded jar
     * and from a test class path.
     */
    static WorkerProcess start(int id, String redisUri, int acquisitions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        System.getProperties().stringPropertyNames().stream().filter(name -> name.startsWith(LOGGING_PROPERTIES))
                .sorted().forEach(name -> command.add("-D" + name + "=" + System.getProperty(name)));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DemoWorker.class.getName());
        command.add(Integer.toString(acquisitions));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put(DemoWorker.REDIS_URI_ENV, redisUri);
        WorkerProcess worker = new WorkerProcess(id, builder.start());
        worker.follow(worker.process.getInputStream(), "stdout", worker::onStdout);
        worker.follow(worker.process.getErrorStream(), "stderr", worker::remember);
        return worker;
    }

    int id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    boolean isReady() {
        return ready;
    }

    /** Increments done in the run without the lock, as far as reported. */
    int incremented() {
        return unlockedReport != null ? unlockedReport.increments() : incremented;
    }

    /** Acquisitions done in the run with the lock, as far as reported. */
    int acquired() {
        return acquired;
    }

    long lastToken() {
        return lastToken;
    }

    /** The report of the run without the lock, once the worker has finished it. */
    Optional<UnlockedReport> unlockedReport() {
        return Optional.ofNullable(unlockedReport);
    }

    /** {@link System#nanoTime()} at which the report of the run without the lock arrived, once it did. */
    long unlockedReportNanos() {
        return unlockedReportNanos;
    }

    Optional<WorkerReport> report() {
        return Optional.ofNullable(report);
    }

    /** {@link System#nanoTime()} at which the report arrived; meaningful only once {@link #report()} is present. */
    long reportNanos() {
        return reportNanos;
    }

    /** Lets a {@linkplain #isReady() ready} worker start its next run: the one without the lock, then the other. */
    void go() throws IOException {
        OutputStream stdin = process.getOutputStream();
        stdin.write((DemoWorker.GO + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /** The process has exited and everything it printed has been read, so its report (if any) is in. */
    boolean isFinished() {
        return !process.isAlive() && streamsClosed.getCount() == 0;
    }

    /** True once the process has exited. */
    boolean hasExited() {
        return !process.isAlive();
    }

    /** Exit code, empty while running. */
    OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /** Last lines the worker printed on stderr (and any stdout line that was not a message). */
    List<String> outputTail() {
        synchronized (outputTail) {
            return List.copyOf(outputTail);
        }
    }

    /** Kills the process (SIGKILL) and waits briefly for it to go; safe to call at any time, more than once. */
    void kill() {
        if (!process.isAlive()) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(KILL_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void onStdout(String line) {
        Optional<WorkerMessage> message = WorkerMessage.parse(line);
        if (message.isEmpty()) {
            remember(line);
            return;
        }
        WorkerMessage m = message.get();
        if (m instanceof WorkerMessage.Progress p) {
            // Until its report, progress is of the run without the lock (one reader thread, so in order).
            if (unlockedReport == null) {
                incremented = p.acquired();
            } else {
                acquired = p.acquired();
                lastToken = p.token();
            }
        } else if (m instanceof UnlockedReport u) {
            unlockedReportNanos = System.nanoTime();
            unlockedReport = u;
        } else if (m instanceof WorkerReport r) {
            reportNanos = System.nanoTime();
            report = r;
        } else {
            ready = true;
        }
    }

    private void remember(String line) {
        synchronized (outputTail) {
            if (outputTail.size() == TAIL_LINES) {
                outputTail.removeFirst();
            }
            outputTail.addLast(line);
        }
    }

    /** Drains a stream on a daemon thread, so a chatty worker can never block on a full pipe. */
    private void follow(InputStream stream, String name, Consumer<String> sink) {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    sink.accept(line);
                }
            } catch (IOException ignored) {
                // the process is gone; what was read is kept
            } finally {
                streamsClosed.countDown();
            }
        }, "worker-" + id + "-" + name);
        reader.setDaemon(true);
        reader.start();
    }
}

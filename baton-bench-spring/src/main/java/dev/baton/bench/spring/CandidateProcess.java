package dev.baton.bench.spring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The bench's handle on one {@link ElectionCandidate} JVM: starts it with this JVM's Java and class path (which works
 * from the shaded jar and from a test class path alike), turns its stdout lines into {@link Event}s on a queue the
 * bench reads, and kills ({@code SIGKILL}), stops and continues it. Its stderr goes to a file of its own.
 */
final class CandidateProcess implements AutoCloseable {
    /** A small heap, and C1 only: the candidates are idle most of the time and start faster so. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");

    /**
     * One stdout line of a candidate.
     *
     * @param id    the candidate's number (unique within a run: a replacement gets a new one)
     * @param slot  the place among the candidates it occupies
     * @param type  {@code READY}, {@code ELECTED}, {@code REVOKED}, {@code FOLLOWS} or {@code WRITER-ENDED}
     * @param nanos the candidate's {@link System#nanoTime()} when it happened
     * @param value the epoch ({@code ELECTED}), the last check that found it leading ({@code FOLLOWS}), or 0
     * @param line  the whole line
     */
    record Event(int id, int slot, String type, long nanos, long value, String line) {
    }

    private final int id;
    private final Process process;
    private final PrintWriter stdin;
    private final Path log;

    private CandidateProcess(int id, Process process, Path log) {
        this.id = id;
        this.process = process;
        this.log = log;
        this.stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /**
     * Starts a candidate whose events go to {@code events}.
     *
     * @param id     its number
     * @param slot   its place
     * @param args   {@link ElectionCandidate}'s arguments
     * @param events where its stdout lines go
     * @param logs   the directory for its stderr
     * @return the running candidate
     * @throws IOException if the JVM cannot be started
     */
    static CandidateProcess start(int id, int slot, List<String> args, BlockingQueue<Event> events, Path logs)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ElectionCandidate.class.getName());
        command.addAll(args);
        Path log = logs.resolve("candidate-" + id + ".log");
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        CandidateProcess candidate = new CandidateProcess(id, process, log);
        Thread reader = new Thread(() -> candidate.read(slot, events), "candidate-" + id + "-stdout");
        reader.setDaemon(true);
        reader.start();
        return candidate;
    }

    private void read(int slot, BlockingQueue<Event> events) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.split(" ");
                if (f.length >= 2 && f[1].chars().allMatch(Character::isDigit)) {
                    long value = f.length >= 3 && f[2].matches("-?\\d+") ? Long.parseLong(f[2]) : 0;
                    events.add(new Event(id, slot, f[0], Long.parseLong(f[1]), value, line));
                } else {
                    events.add(new Event(id, slot, f[0], System.nanoTime(), 0, line));
                }
            }
        } catch (IOException e) {
            // the candidate ended
        } catch (RuntimeException e) {
            System.err.println("candidate " + id + ": unreadable output: " + e);
        }
    }

    int id() {
        return id;
    }

    Path log() {
        return log;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    void send(String line) {
        stdin.println(line);
    }

    /** {@code kill -9}: the candidate gets no chance to resign or unlock. */
    void kill() {
        process.destroyForcibly();
    }

    /**
     * Sends a signal to the candidate's JVM.
     *
     * @param signal {@code STOP} or {@code CONT}
     * @throws IOException if {@code kill} fails
     * @throws InterruptedException if interrupted while {@code kill} runs
     */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT"); // a stopped JVM would not die until continued
            } catch (IOException | InterruptedException e) {
                // best effort: SIGKILL below ends a stopped process too
            }
            process.destroyForcibly();
        }
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

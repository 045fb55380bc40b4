package dev.baton.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The command that {@code exec} and {@code elect} run: a child process sharing {@code baton}'s stdin, stdout and
 * stderr, with a few variables added to its environment, which {@code baton} can signal and stop.
 *
 * <p>Stopping is {@code SIGTERM}, then {@code SIGKILL} once a grace period has passed. The kill reaches the command's
 * descendants too (those seen when the stop began or when the kill came): a shell that dies of {@code SIGTERM} at once
 * leaves its own children running, and they must not go on working without the lock. Signals other than the kill go
 * to the command's process only; passing them on is its business, as with any process manager that does not own a
 * process group.
 *
 * <p>Thread-safe: signals arrive on their own threads while another thread waits for the command to end.
 */
final class ChildProcess {
    private final Process process;
    private final String program;
    private final CompletableFuture<Integer> exited;
    /** Descendants seen when a stop began (and when the kill came): killed with the command. */
    private final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();
    /** When the kill is due, on {@link System#nanoTime()}, once a stop has begun. */
    private volatile Long killAtNanos;

    private ChildProcess(Process process, String program) {
        this.process = process;
        this.program = program;
        this.exited = process.onExit().thenApply(Process::exitValue);
    }

    /**
     * Starts a command.
     *
     * @param command the program and its arguments, looked up on {@code PATH} as a shell would
     * @param env     variables added to {@code baton}'s own environment
     * @return the running command
     * @throws CliFailure with {@link ExitStatus#CANNOT_RUN} if it cannot be started (not found, not executable)
     */
    static ChildProcess start(List<String> command, Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().putAll(env);
        try {
            return new ChildProcess(builder.start(), command.get(0));
        } catch (IOException | SecurityException e) {
            throw new CliFailure(ExitStatus.CANNOT_RUN, "cannot run '" + command.get(0) + "': " + why(e));
        }
    }

    /**
     * The process id.
     *
     * @return the pid
     */
    long pid() {
        return process.pid();
    }

    /**
     * For messages: the program and its pid.
     *
     * @return e.g. {@code 'backup.sh' (pid 4242)}
     */
    String describe() {
        return "'" + program + "' (pid " + process.pid() + ")";
    }

    /**
     * Completes with the exit status once the command has ended: its own code, or 128 plus the number of the signal
     * that ended it, as a shell reports it.
     *
     * @return the exit status, to come
     */
    CompletableFuture<Integer> exited() {
        return exited;
    }

    /**
     * Whether the command still runs.
     *
     * @return true until it has ended
     */
    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Sends a signal to the command's process.
     *
     * @param signal the name without {@code SIG}: {@code TERM}, {@code INT}, {@code HUP}...
     */
    void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        if (signal.equals("TERM")) {
            process.destroy(); // SIGTERM on every POSIX JDK, without forking kill(1)
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            kill.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // No kill(1) on PATH: the command does not get this signal; a stop still ends it with SIGKILL.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Begins a stop: the command gets {@code SIGTERM} now (or already got {@code signal}, forwarded), and, unless it
     * has ended with its descendants by then, it and they get {@code SIGKILL} after {@code grace}. A second call sends
     * the signal again but keeps the first deadline.
     *
     * @param signal the signal that asks the command to stop ({@code TERM}, or a forwarded {@code INT})
     * @param grace  how long the command has to end after it
     */
    synchronized void stop(String signal, Duration grace) {
        noteDescendants();
        signal(signal);
        if (killAtNanos == null) {
            killAtNanos = System.nanoTime() + grace.toNanos();
            CompletableFuture.delayedExecutor(grace.toNanos(), TimeUnit.NANOSECONDS).execute(this::kill);
        }
    }

    /**
     * Whether a stop has begun.
     *
     * @return true after {@link #stop}
     */
    boolean stopping() {
        return killAtNanos != null;
    }

    /**
     * Waits for the command to end. After a {@link #stop}, also waits for the descendants it left running until the
     * kill is due, and kills those still there, so that nothing it started outlives {@code baton}.
     *
     * @return the command's exit status (128 + n if a signal ended it)
     * @throws InterruptedException if the waiting thread is interrupted
     */
    int await() throws InterruptedException {
        int status = process.waitFor();
        Long due = killAtNanos;
        if (due != null) {
            for (ProcessHandle d : descendants) {
                long left = due - System.nanoTime();
                if (left > 0) {
                    d.onExit().completeOnTimeout(d, left, TimeUnit.NANOSECONDS).join();
                }
            }
            kill();
        }
        return status;
    }

    /** SIGKILL to the command and every descendant known or found now that is still alive. */
    private void kill() {
        noteDescendants();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    private void noteDescendants() {
        process.descendants().forEach(descendants::add);
    }

    /** The system's reason, from the JDK's "Cannot run program "x": error=2, No such file or directory". */
    private static String why(Exception e) {
        String message = String.valueOf(e.getMessage());
        int at = message.indexOf("error=");
        int comma = at < 0 ? -1 : message.indexOf(", ", at);
        return comma < 0 ? message : message.substring(comma + 2);
    }
}

package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonUnavailableException;
import dev.baton.Lease;
import dev.baton.LockTimeoutException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton exec}: runs a command while holding a lock or one permit of a semaphore, like {@code flock(1)} across
 * machines (docs/cli/exec.md). The hold is a watchdog-renewed {@link Lease}; the command gets its fencing token in
 * {@code BATON_FENCING_TOKEN}. {@code SIGTERM}, {@code SIGINT} and {@code SIGHUP} are passed on to the command; if
 * the lease is lost the command is stopped ({@code SIGTERM}, then {@code SIGKILL} after {@code --grace}). The lease
 * is released however the command ends.
 */
@Command(name = "exec", mixinStandardHelpOptions = true, sortOptions = false, modelTransformer = StopAtCommand.class,
        showEndOfOptionsDelimiterInUsageHelp = true,
        description = {"Run COMMAND while holding a lock (or one permit of a semaphore), renewed for as long as it "
                + "runs. COMMAND gets BATON_FENCING_TOKEN (the hold's fencing token) and BATON_LOCK_NAME in its "
                + "environment; SIGTERM, SIGINT and SIGHUP sent to baton are passed on to it. If the lease is lost "
                + "while it runs, COMMAND gets SIGTERM, then SIGKILL after --grace, and baton exits 79.",
            "Exit status: COMMAND's own when it ran to its end (128+n if signal n ended it); 75 if the lock was busy "
                + "with --wait 0; 124 if --wait ran out; 69 if Redis is unavailable; 79 if the lease was lost; 126 if "
                + "COMMAND could not be started; 2 for bad usage. See docs/cli/exec.md."},
        footer = {"%nExamples:",
            "  baton exec --lock nightly-backup --wait 0 -- /usr/local/bin/backup.sh",
            "  baton exec --semaphore encoders:4 --wait 10m -- ffmpeg -i in.mov out.mp4"})
final class ExecCommand implements Callable<Integer> {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Option(names = "--fair", description = "With --lock: take the fair lock of that name, granted in the order the "
            + "waiters asked (a lock of its own, apart from the plain lock of the same name).")
    boolean fair;

    @Option(names = "--wait", paramLabel = "DURATION", converter = DurationConverter.class, description = "How long "
            + "to wait for the lock: 0 tries once and exits 75 if it is busy (like flock -n); otherwise exits 124 when "
            + "the wait runs out. Default: wait as long as it takes (like flock).")
    Duration wait;

    @Mixin
    SupervisionOptions supervision;

    @Mixin
    ConnectionOptions connection;

    @Parameters(paramLabel = "COMMAND", arity = "1..*", description = "The command and its arguments (after --).")
    List<String> command;

    @Spec
    CommandSpec spec;

    /** Exactly one of --lock and --semaphore. */
    static final class Target {
        @Option(names = "--lock", paramLabel = "NAME", required = true, description = "The lock to hold.")
        String lock;

        @Option(names = "--semaphore", paramLabel = "NAME:PERMITS", required = true, description = "Hold one permit "
                + "of this semaphore instead, so that at most PERMITS commands run at once. PERMITS is the "
                + "semaphore's total, written when the semaphore is new (an existing one keeps its own).")
        String semaphore;
    }

    /** What the waiting thread learns while the command runs, one at a time and in order. */
    private interface Event {
    }

    private record Ended() implements Event {
    }

    private record Lost() implements Event {
    }

    private record Signalled(String signal) implements Event {
    }

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    /** Guards the hand-over from waiting for the lock to running the command, which signals race with. */
    private final Object phaseLock = new Object();
    private Thread caller;
    /** Whether the lock is being waited for (a signal then interrupts the wait). */
    private boolean acquiring;
    /** The command, once started: signals are then passed on to it. */
    private ChildProcess child;
    /** A stopping signal that came before the command started. */
    private String earlySignal;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        String name = target.lock != null ? target.lock : semaphoreName();
        int permits = target.semaphore != null ? semaphorePermits() : 0;
        if (fair && target.lock == null) {
            throw new CliFailure(ExitStatus.USAGE, "--fair goes with --lock (a semaphore has no fair form)");
        }
        String what = (target.lock == null ? "semaphore '" : fair ? "fair lock '" : "lock '") + name + "'";
        caller = Thread.currentThread();
        SignalRelay.install(this::signalled);
        try (Baton baton = connection.connect(err, supervision.lease)) {
            Lease held = acquire(baton, name, permits, what);
            if (held == null) {
                return notRun(what, err);
            }
            try {
                return run(held, name, what, err);
            } finally {
                release(held, what, err);
            }
        }
    }

    /**
     * Takes the lock or permit; a signal during the wait ends the wait, and baton without running the command.
     *
     * @return the lease, or null if a signal came first ({@link #earlySignal} says which)
     */
    private Lease acquire(Baton baton, String name, int permits, String what) {
        synchronized (phaseLock) {
            if (earlySignal != null) {
                return null;
            }
            acquiring = true;
        }
        Duration longest = wait == null ? ChronoUnit.FOREVER.getDuration() : wait;
        try {
            return permits > 0 ? baton.semaphore(name, permits).acquire(1, longest)
                    : fair ? baton.fairLock(name).acquire(longest) : baton.lock(name).acquire(longest);
        } catch (LockTimeoutException e) {
            if (longest.isZero()) {
                throw new CliFailure(ExitStatus.BUSY, what + " is busy: the command was not run (--wait 0; "
                        + "'baton inspect " + name + "' shows the holder)");
            }
            throw new CliFailure(ExitStatus.TIMEOUT, what + " still busy after " + HumanDuration.format(longest)
                    + ": the command was not run");
        } catch (InterruptedException e) {
            synchronized (phaseLock) {
                if (earlySignal == null) {
                    earlySignal = "INT"; // only signals interrupt this thread
                }
                return null;
            }
        } catch (BatonUnavailableException e) {
            throw new CliFailure(ExitStatus.UNAVAILABLE, "Redis unavailable while acquiring " + what + ": "
                    + e.getMessage());
        } finally {
            synchronized (phaseLock) {
                acquiring = false;
            }
        }
    }

    /** Runs the command under the lease; returns baton's exit status. */
    private int run(Lease held, String name, String what, PrintWriter err) {
        ChildProcess started;
        synchronized (phaseLock) {
            Thread.interrupted(); // a signal that interrupted nothing: earlySignal says what it was
            if (earlySignal != null) {
                return notRun(what, err);
            }
            started = ChildProcess.start(command, Map.of(
                    "BATON_FENCING_TOKEN", Long.toString(held.fencingToken()),
                    "BATON_LOCK_NAME", name));
            child = started;
        }
        if (supervision.verbose) {
            err.println("baton: acquired " + what + " (fencing token " + held.fencingToken() + "); running "
                    + started.describe());
        }
        started.exited().thenRun(() -> events.add(new Ended()));
        held.lost().thenRun(() -> events.add(new Lost()));
        boolean lost = false;
        while (true) {
            Event event = take();
            if (event instanceof Ended) {
                int status = awaitChild(started);
                return lost ? ExitStatus.LEASE_LOST.code() : status;
            } else if (event instanceof Lost && started.isAlive()) {
                lost = true;
                started.stop("TERM", supervision.grace);
                err.println("baton: lost " + what + " (fencing token " + held.fencingToken() + "): "
                        + lossReason(held) + "; stopping " + started.describe() + " with SIGTERM, SIGKILL after "
                        + HumanDuration.format(supervision.grace));
            } else if (event instanceof Signalled s) {
                if (supervision.verbose) {
                    err.println("baton: passing SIG" + s.signal() + " on to " + started.describe());
                }
                if (s.signal().equals("HUP")) {
                    started.signal("HUP"); // may mean "reload": the command decides whether to end
                } else {
                    started.stop(s.signal(), supervision.grace);
                }
            }
        }
    }

    private void signalled(String signal) {
        synchronized (phaseLock) {
            if (child != null) {
                events.add(new Signalled(signal));
            } else {
                if (earlySignal == null) {
                    earlySignal = signal;
                }
                if (acquiring) {
                    caller.interrupt();
                }
            }
        }
    }

    private Event take() {
        while (true) {
            try {
                return events.take();
            } catch (InterruptedException e) {
                // Nobody interrupts this thread once the command runs; signals arrive as events.
            }
        }
    }

    private static int awaitChild(ChildProcess started) {
        while (true) {
            try {
                return started.await();
            } catch (InterruptedException e) {
                // as in take()
            }
        }
    }

    /**
     * Why the lease was lost, as the library says it: releasing a lost lease throws with the reason (and gives the
     * lock back in Redis if it is still this lease's there).
     */
    private static String lossReason(Lease held) {
        try {
            held.release();
            return "the lease could not be kept";
        } catch (IllegalMonitorStateException e) {
            String message = String.valueOf(e.getMessage());
            int at = message.indexOf("while held: ");
            return at < 0 ? message : message.substring(at + "while held: ".length());
        } catch (RuntimeException e) {
            return "the lease could not be kept (" + e.getMessage() + ")";
        }
    }

    /** Releases the lease whatever happened; quiet if it was released or lost already. */
    private static void release(Lease held, String what, PrintWriter err) {
        try {
            held.close();
        } catch (BatonUnavailableException e) {
            err.println("baton: could not release " + what + ", Redis unavailable: it stays held until its lease "
                    + "runs out");
        } catch (RuntimeException e) {
            err.println("baton: could not release " + what + ": " + e.getMessage());
        }
    }

    /** Says that a signal ended baton before the command ran; the status is 128 + the signal's number. */
    private int notRun(String what, PrintWriter err) {
        String signal;
        synchronized (phaseLock) {
            signal = earlySignal;
        }
        err.println("baton: SIG" + signal + " before " + what + " was acquired: the command was not run");
        return 128 + SignalRelay.number(signal);
    }

    private String semaphoreName() {
        int colon = target.semaphore.lastIndexOf(':');
        if (colon <= 0) {
            throw new CliFailure(ExitStatus.USAGE, "--semaphore: expected NAME:PERMITS, e.g. encoders:4, not '"
                    + target.semaphore + "'");
        }
        return target.semaphore.substring(0, colon);
    }

    private int semaphorePermits() {
        String text = target.semaphore.substring(target.semaphore.lastIndexOf(':') + 1);
        try {
            int permits = Integer.parseInt(text);
            if (permits >= 1) {
                return permits;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new CliFailure(ExitStatus.USAGE, "--semaphore: PERMITS must be a whole number of at least 1, not '"
                + text + "'");
    }
}

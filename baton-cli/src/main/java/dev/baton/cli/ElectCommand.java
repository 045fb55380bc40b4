package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.Candidacy;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.RevocationReason;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton elect}: runs a command only while this process leads an election (docs/cli/elect.md). The candidacy
 * campaigns for as long as {@code baton} runs: each time it is elected the command starts, with the leadership's
 * epoch in {@code BATON_FENCING_TOKEN}; each time the leadership ends the command is stopped ({@code SIGTERM}, then
 * {@code SIGKILL} after {@code --grace}) and the campaign goes on. A command that ends by itself ends {@code baton}
 * (resigning the leadership) with its exit status; {@code SIGTERM} or {@code SIGINT} stops the command and withdraws.
 */
@Command(name = "elect", mixinStandardHelpOptions = true, sortOptions = false,
        showEndOfOptionsDelimiterInUsageHelp = true,
        description = {"Run COMMAND only while this process leads the election NAME: start it each time this "
                + "candidate is elected (with BATON_FENCING_TOKEN = the leadership's epoch and BATON_LOCK_NAME = "
                + "NAME), stop it each time the leadership ends (SIGTERM, SIGKILL after --grace; the reason goes to "
                + "stderr) and campaign again. Options go before NAME; COMMAND after --.",
            "baton ends when COMMAND ends by itself while leading (it resigns, and exits with COMMAND's status), or on "
                + "SIGTERM/SIGINT (it stops COMMAND, withdraws, and exits with COMMAND's status, or 0 if none was "
                + "running). SIGHUP is passed on to COMMAND. Exit status 69 if Redis is unavailable at start, 126 if "
                + "COMMAND cannot be started, 2 for bad usage. See docs/cli/elect.md."},
        footer = {"%nExample:", "  baton elect invoice-scheduler -- java -jar scheduler.jar"})
final class ElectCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "The election.")
    String name;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND", description = "The command and its "
            + "arguments (after --).")
    List<String> command;

    @Mixin
    SupervisionOptions supervision;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    /** What the main thread learns, one at a time and in order. */
    private interface Event {
    }

    private record Elected(Leadership leadership) implements Event {
    }

    private record Revoked(Leadership leadership, RevocationReason reason) implements Event {
    }

    private record Ended(ChildProcess child) implements Event {
    }

    private record Signalled(String signal) implements Event {
    }

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        SignalRelay.install(signal -> events.add(new Signalled(signal)));
        try (Baton baton = connection.connect(err, supervision.lease)) {
            Candidacy candidacy = baton.election(name).join(new LeadershipListener() {
                @Override
                public void elected(Leadership leadership) {
                    events.add(new Elected(leadership));
                }

                @Override
                public void revoked(Leadership leadership, RevocationReason reason) {
                    events.add(new Revoked(leadership, reason));
                }
            });
            try {
                return campaign(err);
            } finally {
                candidacy.close(); // resigns if still leading, so that another candidate takes over at once
            }
        }
    }

    /** Follows the leaderships until baton should end; returns its exit status. */
    private int campaign(PrintWriter err) {
        ChildProcess child = null;
        // The leadership the running command belongs to, and the newest one not revoked yet: they differ when this
        // candidate is elected again while the command of its previous term is still stopping.
        Leadership term = null;
        Leadership current = null;
        boolean exiting = false;
        while (true) {
            Event event = take();
            if (event instanceof Elected e) {
                current = e.leadership();
                if (child == null && !exiting && current.isValid()) {
                    term = current;
                    child = start(term, err);
                    if (child == null) {
                        return ExitStatus.CANNOT_RUN.code();
                    }
                }
            } else if (event instanceof Revoked r) {
                if (r.leadership() == current) {
                    current = null;
                }
                if (child != null && r.leadership() == term && !child.stopping() && !exiting) {
                    err.println("baton: no longer leader of '" + name + "' (epoch " + term.epoch() + "): "
                            + why(r.reason()) + "; stopping " + child.describe() + " with SIGTERM, SIGKILL after "
                            + HumanDuration.format(supervision.grace) + ", and campaigning again");
                    child.stop("TERM", supervision.grace);
                }
            } else if (event instanceof Ended e) {
                if (e.child() != child) {
                    continue;
                }
                int status = await(child);
                boolean stoppedByUs = child.stopping();
                child = null;
                if (exiting) {
                    return status;
                }
                if (!stoppedByUs) {
                    if (supervision.verbose) {
                        err.println("baton: the command ended with status " + status + "; resigning");
                    }
                    return status;
                }
                if (supervision.verbose) {
                    err.println("baton: the command stopped with status " + status + "; campaigning");
                }
                if (current != null && current.isValid()) { // elected again while it was stopping
                    term = current;
                    child = start(term, err);
                    if (child == null) {
                        return ExitStatus.CANNOT_RUN.code();
                    }
                }
            } else if (event instanceof Signalled s) {
                if (child == null) {
                    if (!s.signal().equals("HUP")) {
                        return ExitStatus.OK.code();
                    }
                } else if (s.signal().equals("HUP")) {
                    child.signal("HUP");
                } else {
                    if (supervision.verbose) {
                        err.println("baton: passing SIG" + s.signal() + " on to " + child.describe()
                                + " and withdrawing");
                    }
                    exiting = true;
                    child.stop(s.signal(), supervision.grace);
                }
            }
        }
    }

    /** Starts the command for a leadership; null (said on stderr) if it cannot be started. */
    private ChildProcess start(Leadership term, PrintWriter err) {
        ChildProcess started;
        try {
            started = ChildProcess.start(command, Map.of(
                    "BATON_FENCING_TOKEN", Long.toString(term.epoch()),
                    "BATON_LOCK_NAME", name));
        } catch (CliFailure f) {
            err.println("baton: " + f.getMessage());
            return null;
        }
        started.exited().thenRun(() -> events.add(new Ended(started)));
        if (supervision.verbose) {
            err.println("baton: elected leader of '" + name + "' (epoch " + term.epoch() + "); running "
                    + started.describe());
        }
        return started;
    }

    private static String why(RevocationReason reason) {
        return switch (reason) {
            case LOST -> "Redis no longer had the leadership, or its lease ran out before this process renewed it";
            case UNAVAILABLE -> "Redis did not answer the renewals before the lease ran out";
            case RESIGNED -> "it was resigned";
            case CLOSED -> "the candidacy was closed";
            default -> reason.name().toLowerCase(java.util.Locale.ROOT); // reasons added after this command
        };
    }

    private Event take() {
        while (true) {
            try {
                return events.take();
            } catch (InterruptedException e) {
                // Nothing interrupts this thread: signals arrive as events.
            }
        }
    }

    private static int await(ChildProcess child) {
        while (true) {
            try {
                return child.await();
            } catch (InterruptedException e) {
                // as in take()
            }
        }
    }
}

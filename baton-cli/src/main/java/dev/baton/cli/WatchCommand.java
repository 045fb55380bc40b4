package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.LeaderElection;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton watch NAME}: follows what is held under a name, live, until interrupted (docs/cli/watch.md). It polls
 * ({@link Baton#inspect}, or with {@code --election} {@link LeaderElection#leader()}) every {@code --interval} and
 * prints one line per change, or one JSON object per line with {@code --json}. {@code SIGINT} or {@code SIGTERM} ends
 * it with status 0; an unreachable Redis with 69.
 */
@Command(name = "watch", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Follow NAME live: print a line, with the time, each time a hold is acquired, released, "
                + "expired (gone when its lease had run out) or handed over (another holder between two polls), and "
                + "when the number of waiters, a semaphore's total or a latch's count changes. The first lines "
                + "describe the state found. Every kind held under NAME is followed (locks, fair and read-write "
                + "locks, semaphore, election, latch).",
            "It polls: one read script per --interval (4 a second by default), so a change shorter than the interval "
                + "may go unseen, and two changes between polls show as one. Runs until SIGINT (Ctrl-C) or SIGTERM, "
                + "then exits 0; exits 69 if Redis becomes unavailable."},
        footer = {"%nExamples:", "  baton watch nightly-backup",
            "  baton watch --json --interval 1s orders:42 | jq -c 'select(.event != \"waiting\")'"})
final class WatchCommand implements Callable<Integer> {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
            .withZone(ZoneId.systemDefault());

    @Parameters(paramLabel = "NAME", description = "The name to follow.")
    String name;

    @Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.class, description = "How "
            + "often to look: one Redis read script each time. Default: ${DEFAULT-VALUE}.", defaultValue = "250ms")
    Duration interval;

    @Option(names = "--election", description = "Follow the election NAME through its leader (one read of the "
            + "leader each time) rather than everything under NAME: the form that works on Redlock masters too, "
            + "without lease or thread.")
    boolean election;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        if (interval.compareTo(Duration.ofMillis(10)) < 0) {
            throw new CliFailure(ExitStatus.USAGE, "--interval must be at least 10ms, not "
                    + HumanDuration.format(interval));
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CountDownLatch stop = new CountDownLatch(1);
        SignalRelay.install(signal -> stop.countDown());
        try (Baton baton = connection.connect(err, null)) {
            LeaderElection leaders = election ? baton.election(name) : null;
            if (!output.json()) {
                err.println("baton: watching " + (election ? "election '" : "'") + name + "' in namespace '"
                        + connection.namespace() + "' on " + connection.describe() + " every "
                        + HumanDuration.format(interval) + " (Ctrl-C to stop)");
            }
            WatchedState state = read(baton, leaders);
            long seenAt = System.nanoTime();
            state.initially().forEach(c -> print(out, c));
            while (!stop.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
                WatchedState now = read(baton, leaders);
                long at = System.nanoTime();
                now.since(state, Duration.ofNanos(at - seenAt)).forEach(c -> print(out, c));
                state = now;
                seenAt = at;
            }
            return ExitStatus.OK.code();
        }
    }

    private WatchedState read(Baton baton, LeaderElection leaders) {
        return leaders != null ? WatchedState.of(leaders.leader()) : WatchedState.of(baton.inspect(name));
    }

    private void print(PrintWriter out, WatchedState.Change c) {
        Instant now = Instant.now();
        if (output.json()) {
            output.printJson(out, json(c, now));
            return;
        }
        String event = switch (c.event()) {
            case "handover" -> "handed over";
            default -> c.event();
        };
        String padded = String.format("%-11s", event);
        String coloured = switch (c.event()) {
            case "acquired", "handover", "held" -> output.warn(padded);
            case "expired" -> output.bold(padded);
            case "released", "free" -> output.dim(padded);
            default -> padded;
        };
        StringBuilder line = new StringBuilder(CLOCK.format(now)).append("  ").append(coloured).append("  ");
        line.append(String.format("%-9s", c.kind() == null ? "-" : c.kind())).append("  ");
        line.append(details(c));
        out.println(line.toString().stripTrailing());
    }

    private String details(WatchedState.Change c) {
        return switch (c.event()) {
            case "free" -> "nothing held under '" + name + "'";
            case "handover" -> describe(c.previous()) + " -> " + describe(c.hold());
            case "waiting" -> c.value() + (c.value() == 1 ? " waiter" : " waiters");
            case "permits" -> c.value() + " permits in total";
            case "count" -> "count " + c.value();
            default -> describe(c.hold());
        };
    }

    private static String describe(WatchedState.Hold h) {
        StringBuilder sb = new StringBuilder(h.host()).append(" pid ").append(h.pid());
        if (h.thread() != null) {
            sb.append(" thread ").append(h.thread());
        }
        sb.append("  token ").append(h.token());
        if (h.kind().equals("semaphore")) {
            sb.append("  ").append(h.permits()).append(h.permits() == 1 ? " permit" : " permits");
        }
        if (h.leaseLeft() != null) {
            sb.append("  lease ").append(HumanDuration.format(h.leaseLeft()));
        }
        return sb.toString();
    }

    private Map<String, Object> json(WatchedState.Change c, Instant now) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", now.toString());
        m.put("event", c.event());
        m.put("name", name);
        boolean side = "read".equals(c.kind()) || "write".equals(c.kind());
        m.put("kind", side ? "rw" : c.kind()); // the kind words of inspect and list; the side goes with the holder
        if (c.hold() != null) {
            m.put("holder", json(c.hold()));
        }
        if (c.previous() != null) {
            m.put("previous", json(c.previous()));
        }
        if (c.value() != null) {
            m.put(c.event().equals("waiting") ? "waiting" : c.event(), c.value());
        }
        return m;
    }

    private static Map<String, Object> json(WatchedState.Hold h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("instance", h.instance());
        m.put("host", h.host());
        m.put("pid", h.pid());
        m.put("thread", h.thread());
        if (h.kind().equals("read") || h.kind().equals("write")) {
            m.put("side", h.kind());
        }
        m.put("fencingToken", h.token());
        m.put("permits", h.permits());
        m.put("leaseLeftMs", h.leaseLeft() == null ? null : h.leaseLeft().toMillis());
        return m;
    }
}

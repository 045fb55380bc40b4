package dev.baton.bench.spring;

import dev.baton.test.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Leader election (issue 23): Baton's {@code LeaderElection} against Spring Integration's
 * {@code LockRegistryLeaderInitiator} over a {@code RedisLockRegistry}, on one redis-server that the test kit starts.
 * Each contender runs {@code --candidates} (4) candidates, each in a JVM of its own ({@link ElectionCandidate}), so
 * that a leader can really die ({@code kill -9}) and really pause ({@code SIGSTOP}); the contenders run one after
 * the other. Per contender:
 * <ol>
 *   <li>(b) Redis commands per second while idle: one leader and its followers, {@code INFO commandstats} over
 *       {@code --idle-seconds} (10);</li>
 *   <li>(a) failover: {@code --kills} (20) times, the leader is killed with {@code SIGKILL} (no resignation, no
 *       unlock: its lock stays in Redis until its lease runs out), and the time from the kill to another candidate's
 *       election callback is taken; a fresh candidate then takes the dead one's place;</li>
 *   <li>(c) a paused leader: every candidate writes to an {@link EpochResource} every 5 ms while it believes it
 *       leads, with its epoch (Baton) or none (Spring, which has none); {@code --pauses} (5) times the leader is
 *       stopped ({@code SIGSTOP}) until another is elected, plus {@code --pause-extra-ms} (1,000), then continued.
 *       The double-leader window is how long the old leader still believed it led, and acted on it, after it ran
 *       again while its successor led; and whether the resource accepted writes from both.</li>
 * </ol>
 * Times cross JVMs as {@link System#nanoTime()} stamps, which on Linux all read one monotonic clock (checked at each
 * candidate's start).
 *
 * <p>Run: {@code java -cp baton-bench-spring/target/benchmarks.jar dev.baton.bench.spring.ElectionBench
 * [--contenders baton,spring-spin,spring-pubsub] [--candidates 4] [--kills 20] [--pauses 5] [--lease-ms 10000]
 * [--idle-seconds 10] [--recheck-ms 1000] [--heartbeat-ms 500] [--busy-wait-ms 50] [--idle-between-tries-ms 100]
 * [--pause-extra-ms 1000] [--settle-ms 1000] [--out FILE]}; prints a Markdown report.
 */
public final class ElectionBench {
    static final String BATON = "baton";
    /** Spring's initiator over the registry's default lock type, which polls. */
    static final String SPRING_SPIN = "spring-spin";
    /** Spring's initiator over the registry's pub/sub lock type. */
    static final String SPRING_PUBSUB = "spring-pubsub";
    static final List<String> CONTENDERS = List.of(BATON, SPRING_SPIN, SPRING_PUBSUB);

    /** How long a JVM may take to start a candidate, on a loaded machine. */
    private static final Duration START_BOUND = Duration.ofSeconds(60);

    /**
     * What to run.
     *
     * @param contenders   which elections, of {@link #CONTENDERS}
     * @param candidates   candidates per contender
     * @param kills        leaders killed per contender
     * @param pauses       leaders paused per contender
     * @param lease        Baton's {@code watchdogLease} and the registry's {@code expireAfter}
     * @param idle         span of the idle command count
     * @param recheck      Baton's {@code recheckInterval}
     * @param heartBeat    the initiator's {@code heartBeatMillis}
     * @param busyWait     the initiator's {@code busyWaitMillis}
     * @param idleBetween  the registry's {@code idleBetweenTries} (its spin lock's pause between tries)
     * @param pauseExtra   how long a paused leader stays stopped after its successor's election
     * @param settle       pause before each step, so that a fresh candidate's first try is behind it and the
     *                     followers wait (twice that before the idle span)
     */
    record Plan(List<String> contenders, int candidates, int kills, int pauses, Duration lease, Duration idle,
                Duration recheck, Duration heartBeat, Duration busyWait, Duration idleBetween, Duration pauseExtra,
                Duration settle) {

        /** The defaults: about 5 to 6 minutes per contender. */
        static final Plan FULL = new Plan(CONTENDERS, 4, 20, 5, Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofMillis(50), Duration.ofMillis(100),
                Duration.ofSeconds(1), Duration.ofSeconds(1));

        Plan {
            if (candidates < 2 || kills < 0 || pauses < 0 || !CONTENDERS.containsAll(contenders)) {
                throw new IllegalArgumentException("invalid plan: " + contenders + ", " + candidates
                        + " candidates, " + kills + " kills, " + pauses + " pauses");
            }
        }

        /** The longest a successor may take after a leader died or stopped before the bench gives up on it. */
        Duration successionBound() {
            return lease.multipliedBy(3).plus(recheck).plusSeconds(30);
        }

        String describe() {
            return String.format(Locale.ROOT, "%d candidates per contender, each its own JVM; lease %d ms for both"
                            + " (Baton watchdogLease, RedisLockRegistry expireAfter); Baton recheckInterval %d ms;"
                            + " initiator heartBeatMillis %d, busyWaitMillis %d; registry idleBetweenTries %d ms"
                            + " (spin lock); %d kills, %d pauses (stopped until a successor is elected, + %d ms);"
                            + " idle span %d s", candidates, lease.toMillis(), recheck.toMillis(),
                    heartBeat.toMillis(), busyWait.toMillis(), idleBetween.toMillis(), kills, pauses,
                    pauseExtra.toMillis(), idle.toSeconds());
        }

        static Plan parse(Map<String, String> o) {
            return new Plan(List.of(o.getOrDefault("contenders", String.join(",", CONTENDERS)).split(",")),
                    Integer.parseInt(o.getOrDefault("candidates", "4")),
                    Integer.parseInt(o.getOrDefault("kills", "20")),
                    Integer.parseInt(o.getOrDefault("pauses", "5")),
                    millis(o, "lease-ms", FULL.lease), seconds(o, "idle-seconds", FULL.idle),
                    millis(o, "recheck-ms", FULL.recheck), millis(o, "heartbeat-ms", FULL.heartBeat),
                    millis(o, "busy-wait-ms", FULL.busyWait), millis(o, "idle-between-tries-ms", FULL.idleBetween),
                    millis(o, "pause-extra-ms", FULL.pauseExtra), millis(o, "settle-ms", FULL.settle));
        }

        private static Duration millis(Map<String, String> o, String key, Duration fallback) {
            return o.containsKey(key) ? Duration.ofMillis(Long.parseLong(o.get(key))) : fallback;
        }

        private static Duration seconds(Map<String, String> o, String key, Duration fallback) {
            return o.containsKey(key) ? Duration.ofSeconds(Long.parseLong(o.get(key))) : fallback;
        }
    }

    /**
     * One pause of a leader.
     *
     * @param replacedAfter    from the stop to the successor's election, ns; -1 if none was elected in time
     * @param window           how long the old leader acted as leader after it ran again while its successor led,
     *                         ns (its last check that found it leading, minus the later of the continue and the
     *                         successor's election); 0 if it never did
     * @param revokedAfter     from the continue to the old leader's revocation callback, ns; -1 if none came
     * @param oldWrites        the old leader's writes after its successor's election
     * @param oldAccepted      of those, the ones the resource accepted
     * @param successorWrote   whether the resource accepted a write from the successor
     */
    record Pause(long replacedAfter, long window, long revokedAfter, int oldWrites, int oldAccepted,
                 boolean successorWrote) {
        boolean bothAccepted() {
            return oldAccepted > 0 && successorWrote;
        }
    }

    /** One contender's figures. */
    static final class Row {
        final String contender;
        final List<Long> failovers = new ArrayList<>();
        final List<Pause> pauses = new ArrayList<>();
        final List<String> anomalies = new ArrayList<>();
        double idleCommandsPerSecond = Double.NaN;
        String idleBreakdown = "";

        Row(String contender) {
            this.contender = contender;
        }
    }

    private ElectionBench() {
    }

    /**
     * Runs the bench and prints its report.
     *
     * @param args the options above
     * @throws Exception if the run cannot start or the report cannot be written
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --option value pairs, got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[++i]);
        }
        Path out = options.containsKey("out") ? Path.of(options.remove("out")) : null;
        Plan plan = Plan.parse(options);
        String loadBefore = loadAverage();
        String markdown;
        try (RedisServer server = RedisServer.start()) {
            List<Row> rows = run(server, plan);
            Map<String, String> header = new LinkedHashMap<>();
            header.put("Date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
            header.put("Command", "java -cp baton-bench-spring/target/benchmarks.jar " + ElectionBench.class.getName()
                    + (args.length == 0 ? "" : " " + String.join(" ", args)));
            header.put("Redis", server.command("INFO", "server").lines()
                    .filter(l -> l.startsWith("redis_version:")).map(l -> l.substring(14).trim()).findFirst()
                    .orElse("?") + " (" + server.binary().path() + ")");
            header.put("Libraries", "Spring Integration " + SpringBenchMain.libraryVersion("spring-integration-core")
                    + ", Spring Data Redis "
                    + SpringBenchMain.mavenVersion("org.springframework.data", "spring-data-redis") + ", Lettuce "
                    + SpringBenchMain.mavenVersion("io.lettuce", "lettuce-core"));
            header.put("Settings", plan.describe());
            header.put("Load average", loadBefore + " (start), " + loadAverage() + " (end)");
            markdown = markdown(rows, header);
        }
        System.out.println();
        System.out.println(markdown);
        if (out != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, markdown, StandardCharsets.UTF_8);
            System.out.println("report written to " + out.toAbsolutePath());
        }
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    /**
     * Runs every contender of {@code plan} on {@code server}, one after the other.
     *
     * @param server the redis-server every candidate uses
     * @param plan   what to run
     * @return a row per contender
     * @throws IOException if a candidate JVM cannot be started
     */
    static List<Row> run(RedisServer server, Plan plan) throws IOException {
        Path logs = Files.createTempDirectory("election-bench-");
        List<Row> rows = new ArrayList<>();
        for (String contender : plan.contenders()) {
            log(contender + ": " + plan.candidates() + " candidates; candidate logs in " + logs);
            Row row = new Row(contender);
            try (Race race = new Race(contender, server.uri(), plan, logs)) {
                race.measure(row);
            } catch (Exception | Error e) {
                row.anomalies.add(contender + " failed: " + e);
            }
            rows.add(row);
        }
        return rows;
    }

    /** One contender's candidates, and the events they report. */
    private static final class Race implements AutoCloseable {
        private final String contender;
        private final String uri;
        private final Plan plan;
        private final Path logs;
        private final BlockingQueue<CandidateProcess.Event> events = new LinkedBlockingQueue<>();
        private final List<CandidateProcess.Event> history = new ArrayList<>();
        private final CandidateProcess[] slots;
        private final EpochResource resource;
        private int nextId;
        private int leader = -1;

        Race(String contender, String uri, Plan plan, Path logs) throws IOException {
            this.contender = contender;
            this.uri = uri;
            this.plan = plan;
            this.logs = logs;
            this.slots = new CandidateProcess[plan.candidates()];
            this.resource = new EpochResource();
        }

        void measure(Row row) throws Exception {
            for (int slot = 0; slot < slots.length; slot++) {
                slots[slot] = start(slot);
            }
            for (int slot = 0; slot < slots.length; slot++) {
                awaitReady(slot);
            }
            currentLeader();
            idle(row);
            for (int k = 0; k < plan.kills(); k++) {
                kill(row);
            }
            if (plan.pauses() > 0) {
                for (CandidateProcess candidate : slots) {
                    candidate.send("WRITE");
                }
                for (int p = 0; p < plan.pauses(); p++) {
                    pause(row);
                }
            }
        }

        private CandidateProcess start(int slot) throws IOException {
            List<String> args = new ArrayList<>(List.of("--kind", contender, "--uri", uri,
                    "--election", "election-bench-" + contender, "--lease-ms", Long.toString(plan.lease().toMillis()),
                    "--id", Integer.toString(nextId), "--resource-port", Integer.toString(resource.port()),
                    "--recheck-ms", Long.toString(plan.recheck().toMillis()),
                    "--heartbeat-ms", Long.toString(plan.heartBeat().toMillis()),
                    "--busy-wait-ms", Long.toString(plan.busyWait().toMillis()),
                    "--idle-between-tries-ms", Long.toString(plan.idleBetween().toMillis())));
            return CandidateProcess.start(nextId++, slot, args, events, logs);
        }

        private void awaitReady(int slot) throws InterruptedException {
            long deadline = System.nanoTime() + START_BOUND.toNanos();
            int id = slots[slot].id();
            // another candidate's wait may have taken this one's READY off the queue already
            CandidateProcess.Event ready = history.stream().filter(e -> e.id() == id && e.type().equals("READY"))
                    .findFirst().orElse(null);
            if (ready == null) {
                ready = next(deadline, e -> e.id() == id && e.type().equals("READY"));
            }
            if (ready == null) {
                throw new IllegalStateException("candidate " + id + " did not start within " + START_BOUND
                        + "; its log: " + slots[slot].log());
            }
            long now = System.nanoTime();
            if (ready.nanos() > now || now - ready.nanos() > START_BOUND.toNanos()) {
                throw new IllegalStateException("candidate " + id + "'s System.nanoTime() is not this JVM's clock"
                        + " (its " + ready.nanos() + ", ours " + now + "): the bench needs one monotonic clock");
            }
        }

        /** (b): commands per second over the idle span, after the candidates settled. */
        private void idle(Row row) throws InterruptedException {
            Thread.sleep(plan.settle().multipliedBy(2).toMillis()); // pacing: renewals and waits in their steady state
            try (RedisStats stats = new RedisStats(uri)) {
                Map<String, Long> before = stats.commands();
                long start = System.nanoTime();
                Thread.sleep(plan.idle().toMillis()); // the measured span
                Map<String, Long> after = stats.commands();
                double seconds = (System.nanoTime() - start) / 1e9;
                Map<String, Long> delta = new HashMap<>();
                after.forEach((k, v) -> delta.put(k, v - before.getOrDefault(k, 0L)));
                delta.values().removeIf(v -> v == 0);
                row.idleCommandsPerSecond = delta.values().stream().mapToLong(Long::longValue).sum() / seconds;
                row.idleBreakdown = delta.entrySet().stream()
                        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue() / seconds))
                        .collect(Collectors.joining(", "));
            }
            log(String.format(Locale.ROOT, "%s idle: %.1f commands/s (%s)", contender, row.idleCommandsPerSecond,
                    row.idleBreakdown));
        }

        /** (a): kills the leader and times its successor's election; a fresh candidate takes the dead one's place. */
        private void kill(Row row) throws Exception {
            Thread.sleep(plan.settle().toMillis()); // pacing
            int victim = currentLeader();
            long killed = System.nanoTime();
            slots[victim].kill();
            CandidateProcess.Event elected = awaitElectedOtherThan(victim, killed);
            if (elected == null) {
                throw new IllegalStateException("no successor within " + plan.successionBound() + " of a kill");
            }
            row.failovers.add(elected.nanos() - killed);
            log(String.format(Locale.ROOT, "%s kill %d: new leader after %.3f s", contender, row.failovers.size(),
                    (elected.nanos() - killed) / 1e9));
            slots[victim].close();
            slots[victim] = start(victim);
            awaitReady(victim);
        }

        /** (c): stops the leader until a successor is elected, then continues it and watches both. */
        private void pause(Row row) throws Exception {
            Thread.sleep(plan.settle().toMillis()); // pacing: the writers run
            int paused = currentLeader();
            int pausedId = slots[paused].id();
            long stopped = System.nanoTime();
            slots[paused].signal("STOP");
            CandidateProcess.Event successor = awaitElectedOtherThan(paused, stopped);
            if (successor == null) {
                slots[paused].signal("CONT");
                row.pauses.add(new Pause(-1, 0, -1, 0, 0, false));
                row.anomalies.add("no successor within " + plan.successionBound() + " of a pause");
                return;
            }
            Thread.sleep(plan.pauseExtra().toMillis()); // the pause outlasts the succession by this much
            long continued = System.nanoTime();
            slots[paused].signal("CONT");
            long deadline = continued + plan.lease().multipliedBy(2).plusSeconds(10).toNanos();
            CandidateProcess.Event follows = next(deadline,
                    e -> e.id() == pausedId && e.type().equals("FOLLOWS") && e.nanos() > continued);
            Thread.sleep(300); // pacing: the last writes in flight reach the resource
            drain();
            long revokedAt = history.stream().filter(e -> e.id() == pausedId && e.type().equals("REVOKED")
                    && e.nanos() > stopped).mapToLong(CandidateProcess.Event::nanos).min().orElse(-1);
            long since = Math.max(continued, successor.nanos());
            long window = follows == null ? deadline - since : Math.max(0, follows.value() - since);
            List<EpochResource.Write> writes = resource.writesAfter(successor.nanos());
            int oldWrites = (int) writes.stream().filter(w -> w.candidate() == pausedId).count();
            int oldAccepted = (int) writes.stream().filter(w -> w.candidate() == pausedId && w.accepted()).count();
            boolean successorWrote = writes.stream()
                    .anyMatch(w -> w.candidate() == successor.id() && w.accepted());
            Pause pause = new Pause(successor.nanos() - stopped, window, revokedAt < 0 ? -1 : revokedAt - continued,
                    oldWrites, oldAccepted, successorWrote);
            row.pauses.add(pause);
            if (follows == null) {
                row.anomalies.add("a paused leader still believed it led " + Duration.ofNanos(deadline - continued)
                        + " after it was continued");
            }
            log(String.format(Locale.ROOT, "%s pause %d: successor after %.3f s; old leader acted %.1f ms after"
                            + " resuming, revoked after %.1f ms, %d of its %d writes accepted", contender,
                    row.pauses.size(), pause.replacedAfter() / 1e9, window / 1e6,
                    revokedAt < 0 ? Double.NaN : (revokedAt - continued) / 1e6, oldAccepted, oldWrites));
        }

        /** The leader as the events tell, waiting for one if there is none at the moment. */
        private int currentLeader() throws InterruptedException {
            drain();
            long deadline = System.nanoTime() + plan.successionBound().toNanos();
            while (leader < 0) {
                if (next(deadline, e -> e.type().equals("ELECTED")) == null) {
                    throw new IllegalStateException("nobody leads, and nobody was elected within "
                            + plan.successionBound());
                }
            }
            return leader;
        }

        private CandidateProcess.Event awaitElectedOtherThan(int slot, long from) throws InterruptedException {
            return next(from + plan.successionBound().toNanos(),
                    e -> e.type().equals("ELECTED") && e.slot() != slot && e.nanos() > from);
        }

        /** Takes events until one matches or the deadline passes (then null), keeping track of the leader. */
        private CandidateProcess.Event next(long deadline, java.util.function.Predicate<CandidateProcess.Event> match)
                throws InterruptedException {
            while (true) {
                long left = deadline - System.nanoTime();
                CandidateProcess.Event e = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
                if (e == null) {
                    return null;
                }
                track(e);
                if (match.test(e)) {
                    return e;
                }
            }
        }

        private void drain() {
            CandidateProcess.Event e;
            while ((e = events.poll()) != null) {
                track(e);
            }
        }

        private void track(CandidateProcess.Event e) {
            history.add(e);
            // events of a killed candidate's process may still arrive: only the slot's current process counts
            if (slots[e.slot()] == null || slots[e.slot()].id() != e.id()) {
                return;
            }
            if (e.type().equals("ELECTED")) {
                leader = e.slot();
            } else if (e.type().equals("REVOKED") && leader == e.slot()) {
                leader = -1;
            }
        }

        @Override
        public void close() throws IOException {
            for (CandidateProcess candidate : slots) {
                if (candidate != null) {
                    candidate.close();
                }
            }
            resource.close();
        }
    }

    /**
     * The report: settings, one row per contender, and what each spent while idle.
     *
     * @param rows   the contenders' figures
     * @param header lines above the table
     * @return Markdown
     */
    static String markdown(List<Row> rows, Map<String, String> header) {
        StringBuilder out = new StringBuilder("## Leader election (issue 23)\n\n");
        header.forEach((k, v) -> out.append("- ").append(k).append(": ").append(v).append('\n'));
        out.append("\n| Contender | kills | new leader after kill -9 p50 | p99 | max | Redis cmds/s idle"
                + " | pauses | double-leader window p50 | max | revoked after resume p50 | old leader's writes"
                + " accepted / sent after successor elected | pauses where both leaders' writes were accepted |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            long[] windows = r.pauses.stream().filter(p -> p.replacedAfter() >= 0).mapToLong(Pause::window)
                    .toArray();
            long[] revoked = r.pauses.stream().filter(p -> p.revokedAfter() >= 0).mapToLong(Pause::revokedAfter)
                    .toArray();
            long[] failovers = r.failovers.stream().mapToLong(Long::longValue).toArray();
            out.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %.1f | %d | %s | %s | %s | %d / %d"
                            + " | %d of %d |%n", r.contender, failovers.length, seconds(failovers, 50),
                    seconds(failovers, 99), seconds(failovers, 100), r.idleCommandsPerSecond, r.pauses.size(),
                    millis(windows, 50), millis(windows, 100), millis(revoked, 50),
                    r.pauses.stream().mapToInt(Pause::oldAccepted).sum(),
                    r.pauses.stream().mapToInt(Pause::oldWrites).sum(),
                    r.pauses.stream().filter(Pause::bothAccepted).count(), r.pauses.size()));
        }
        out.append('\n');
        for (Row r : rows) {
            out.append("- ").append(r.contender).append(", commands/s while idle: ").append(r.idleBreakdown)
                    .append('\n');
        }
        List<String> anomalies = rows.stream().flatMap(r -> r.anomalies.stream()).toList();
        out.append(anomalies.isEmpty() ? "" : "\n### Anomalies\n\n- " + String.join("\n- ", anomalies) + "\n");
        return out.toString();
    }

    /** The nearest-rank percentile {@code p} of {@code nanos}, in seconds; a dash without values. */
    private static String seconds(long[] nanos, double p) {
        return nanos.length == 0 ? "–" : String.format(Locale.ROOT, "%.2f s", percentile(nanos, p) / 1e9);
    }

    private static String millis(long[] nanos, double p) {
        return nanos.length == 0 ? "–" : String.format(Locale.ROOT, "%.1f ms", percentile(nanos, p) / 1e6);
    }

    static long percentile(long[] values, double p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static void log(String line) {
        System.out.println("[election-bench] " + line);
        System.out.flush();
    }

    private static String loadAverage() {
        try {
            return String.join(" ", Arrays.asList(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+"))
                    .subList(0, 3));
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}

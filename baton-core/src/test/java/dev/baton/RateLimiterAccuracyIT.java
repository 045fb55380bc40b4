package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit.Algorithm;
import dev.baton.support.ChildJvm;
import dev.baton.support.Intervals;
import dev.baton.support.RateLimitWorker;
import dev.baton.support.RefusalJudge;
import dev.baton.test.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Four processes x four threads hammer one limiter for 10 s, far faster than its rate, and the limiter is judged
 * both ways on the Redis clock: it admitted no more than its algorithm promises, and it refused nothing it should
 * have admitted. Neither judgement can fail because the machine is slow.
 *
 * <p><b>Not too many.</b> What passed stays within the algorithm's bound over the run (the table in
 * {@code docs/rate-limiting.md}), between two readings of Redis's clock taken before the run starts and after it
 * ends. A stall only lowers what passes.
 *
 * <p><b>Not too few.</b> Counting admissions against the rate ("at least 95% of it") cannot work here: a limiter
 * cannot admit requests nobody sends, a loaded machine stalls every process at once, and any allowance for such
 * stalls is a threshold that more load exceeds. So the test does not count what passed but checks every refusal
 * it is shown: was the limit really reached when it was refused? Whether that holds depends only on what was
 * admitted before, which the workers record, so it holds on a machine of any speed.
 *
 * <p>Redis's {@code TIME} ({@code gettimeofday}) and Java's {@code Instant.now()} read one clock
 * ({@code CLOCK_REALTIME}) on one machine, both truncated to microseconds here. Each worker reads it just before a
 * {@code tryAcquire()} and just after the answer, so the moment the script read its clock lies in
 * {@code [sent, received]} ({@link RateLimitWorker}). The workers report every admission's interval, and one
 * refusal per thread and millisecond, the one with the narrowest interval: any subset of the real refusals, each
 * judged on its own interval, is a fair sample (tens of millions would not fit through a pipe), and the narrowest
 * is the hardest to excuse. {@link RefusalJudge} then takes the most lenient reading of the intervals and
 * asks whether the limit could have been reached at some moment of the refusal's interval. A stalled machine widens
 * intervals, which only makes that reading more lenient; it never condemns a correct limiter. A limiter that
 * refuses with room to spare is caught when the room outlasts that uncertainty: the refusal's own interval, and the
 * admissions in flight with it, which the reading counts as if they had come first. A request that got no answer
 * (a timeout on a stalled machine) counts as admitted at any moment after it was sent.
 *
 * <p>Half the worker threads share a limiter object, which repeats a refusal it knows of without asking Redis
 * ({@code KnownRefusal}); those refusals are judged too. They hold for the same reason the limiter may give them:
 * the limit stays reached until the {@code retryAfter} Redis gave, counted from before Redis read its clock. The
 * judge's one-microsecond allowance is the rounding of that clock and of {@code retryAfter}, explained in
 * {@link RefusalJudge}.
 *
 * <p>There is no check that the run refused anything: how much was asked depends on the machine's speed. The
 * printed line tells how many refusals were judged, and how close the closest came to unjustified. What is checked
 * is that the workers' reports match their counts, so that a report that lost its data cannot pass for a clean
 * run, and that Redis's clock reads between two readings of this JVM's, the premise of the judgement.
 */
// Four worker JVMs keep both cores busy: run alone, after the other integration tests (baton-core's pom.xml).
@Tag("cpu-bound")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RateLimiterAccuracyIT {
    private static final int PROCESSES = 4;
    private static final int THREADS = 4;
    private static final int SECONDS = 10;
    private static final long PERMITS = 500;
    private static final long PERIOD_MICROS = 1_000_000;
    private static final long GCRA_BURST = 100;

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final List<ChildJvm> children = new ArrayList<>();

    @BeforeAll
    void startProcesses() throws Exception {
        for (int i = 0; i < PROCESSES; i++) {
            children.add(ChildJvm.start(RateLimitWorker.class, redis.server().uri(), Integer.toString(THREADS)));
        }
        for (ChildJvm child : children) {
            child.awaitLine("READY", 60);
        }
    }

    @AfterAll
    void stopProcesses() {
        children.forEach(c -> c.send("EXIT"));
        children.forEach(ChildJvm::close);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void admitsWhatTheAlgorithmPromisesAndRefusesOnlyAtTheLimit(Algorithm algorithm) throws Exception {
        long burst = algorithm == Algorithm.GCRA ? GCRA_BURST : PERMITS;
        long start = redisMicros();
        for (ChildJvm child : children) {
            child.send("RUN accuracy-" + algorithm + " " + algorithm + " " + PERMITS + " " + PERIOD_MICROS / 1000
                    + " " + burst + " " + SECONDS);
        }
        long admitted = 0;
        long decisions = 0;
        long refusals = 0;
        long unknown = 0;
        Intervals admissions = new Intervals();
        Intervals refused = new Intervals();
        for (ChildJvm child : children) {
            String[] result = child.awaitLine("RESULT", 60 + SECONDS).split(" ");
            admitted += Long.parseLong(result[1]);
            decisions += Long.parseLong(result[2]);
            refusals += Long.parseLong(result[3]);
            unknown += Long.parseLong(result[4]);
            admissions.addAll(Intervals.decode(result[5]));
            refused.addAll(Intervals.decode(result[6]));
        }
        long end = redisMicros();
        // What the workers sent is what they counted: guards the judgement below against judging nothing.
        assertThat(admissions.closed()).as("admissions reported").isEqualTo(admitted);
        assertThat(admissions.size() - admissions.closed()).as("unknown outcomes reported").isEqualTo(unknown);
        assertThat(refused.size() > 0).as("some refusals reported if any happened").isEqualTo(refusals > 0);

        long upper = switch (algorithm) {
            // Permits replenish continuously: a full burst at the start, then the rate.
            case GCRA -> burst + PERMITS * (end - start) / PERIOD_MICROS;
            // At most PERMITS in any window of one period, and the run spans this many periods.
            case SLIDING_WINDOW_LOG -> PERMITS * ceilDiv(end - start, PERIOD_MICROS);
            // At most PERMITS in each aligned window the run touches.
            case FIXED_WINDOW -> PERMITS * (end / PERIOD_MICROS - start / PERIOD_MICROS + 1);
        };

        RefusalJudge judge = new RefusalJudge(algorithm, PERMITS, PERIOD_MICROS, burst, admissions);
        long unjustified = 0;
        List<String> examples = new ArrayList<>();
        double closest = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < refused.size(); i++) {
            long s = refused.sent(i);
            long r = refused.received(i);
            double free = judge.freePermits(s, r);
            if (judge.justified(s, r)) {
                closest = Math.max(closest, free);
            } else if (unjustified++ < 5) {
                examples.add("sent " + (s - start) + " µs after the start, answered " + (r - s) + " µs later, with "
                        + free + " permits free");
            }
        }
        System.out.printf("%s: admitted %d of %d decisions in %d µs (%.1f%% of the rate); at most %d may pass;"
                        + " %d refusals, %d judged, %d unjustified (closest: %.3f permits free); %d unknown outcomes%n",
                algorithm, admitted, decisions, end - start, 100.0 * admitted * PERIOD_MICROS / PERMITS / (end - start),
                upper, refusals, refused.size(), unjustified, closest, unknown);

        assertThat(admitted).as("%s: admitted of %d decisions in %d µs", algorithm, decisions, end - start)
                .isLessThanOrEqualTo(upper);
        assertThat(unjustified).as("%s: refusals while the limit had room, e.g. %s", algorithm, examples).isZero();
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /**
     * Redis's clock, checked to be this JVM's wall clock: the reading must lie between two of ours. The judgement
     * of refusals rests on that; a machine whose Redis and Java disagree on the time fails here, not there.
     */
    private static long redisMicros() {
        long before = RateLimitWorker.wallMicros();
        String[] time = redis.server().command("TIME").split("\n");
        long after = RateLimitWorker.wallMicros();
        long micros = Long.parseLong(time[0].trim()) * 1_000_000 + Long.parseLong(time[1].trim());
        assertThat(micros).as("Redis's TIME between two readings of Instant.now()").isBetween(before, after);
        return micros;
    }
}

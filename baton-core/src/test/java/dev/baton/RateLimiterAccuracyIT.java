package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit.Algorithm;
import dev.baton.support.ChildJvm;
import dev.baton.support.RateLimitWorker;
import dev.baton.test.RedisExtension;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Four processes x four threads hammer one limiter for 10 s, far faster than its rate. What passes must stay within
 * what the algorithm promises over the run, measured on the Redis clock, and reach at least 95% of the rate over the
 * time somebody was asking. A shared machine can stall every process at once for a moment; a limiter cannot admit
 * requests nobody sends, so 10 ms slots in which no process completed a decision are not counted as asking time.
 */
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
    void admitsWhatTheAlgorithmPromisesAcrossProcesses(Algorithm algorithm) throws Exception {
        long burst = algorithm == Algorithm.GCRA ? GCRA_BURST : PERMITS;
        long start = redisMicros();
        long origin = System.nanoTime();
        for (ChildJvm child : children) {
            child.send("RUN accuracy-" + algorithm + " " + algorithm + " " + PERMITS + " " + PERIOD_MICROS / 1000
                    + " " + burst + " " + SECONDS + " " + origin);
        }
        long admitted = 0;
        long decisions = 0;
        BitSet busy = new BitSet();
        for (ChildJvm child : children) {
            String[] result = child.awaitLine("RESULT", 60 + SECONDS).split(" ");
            admitted += Long.parseLong(result[1]);
            decisions += Long.parseLong(result[2]);
            busy.or(BitSet.valueOf(HexFormat.of().parseHex(result.length > 3 ? result[3] : "")));
        }
        long end = redisMicros();
        // Slots of the 10 s every process hammers (from the first busy slot) in which nobody completed a decision.
        int first = busy.nextSetBit(0);
        int stalledSlots = SECONDS * 100 - busy.get(first, first + SECONDS * 100).cardinality();
        long askingMicros = SECONDS * 1_000_000L - stalledSlots * 10_000L;

        long upper = switch (algorithm) {
            // Permits replenish continuously: a full burst at the start, then the rate.
            case GCRA -> burst + PERMITS * (end - start) / PERIOD_MICROS;
            // At most PERMITS in any window of one period, and the run spans this many periods.
            case SLIDING_WINDOW_LOG -> PERMITS * ceilDiv(end - start, PERIOD_MICROS);
            // At most PERMITS in each aligned window the run touches.
            case FIXED_WINDOW -> PERMITS * (end / PERIOD_MICROS - start / PERIOD_MICROS + 1);
        };
        long expected = PERMITS * askingMicros / PERIOD_MICROS + (algorithm == Algorithm.GCRA ? burst : 0);
        System.out.printf("%s: admitted %d of %d decisions in %d µs (%d ms without any decision); bounds [%d, %d]%n",
                algorithm, admitted, decisions, end - start, stalledSlots * 10, expected * 95 / 100, upper);
        assertThat(stalledSlots).as("10 ms slots without any decision: the machine stalled too long to judge")
                .isLessThan(SECONDS * 100 / 5);
        assertThat(decisions).as("demand far above the rate").isGreaterThan(3 * expected);
        assertThat(admitted).as("%s: admitted of %d decisions in %d µs", algorithm, decisions, end - start)
                .isLessThanOrEqualTo(upper)
                .isGreaterThanOrEqualTo(expected * 95 / 100);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static long redisMicros() {
        String[] time = redis.server().command("TIME").split("\n");
        return Long.parseLong(time[0].trim()) * 1_000_000 + Long.parseLong(time[1].trim());
    }
}

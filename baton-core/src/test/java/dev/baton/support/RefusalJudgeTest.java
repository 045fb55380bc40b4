package dev.baton.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimit.Algorithm;
import org.junit.jupiter.api.Test;

/**
 * The judge of {@code RateLimiterAccuracyIT} on hand-made histories: a refusal at the limit passes, one a
 * microsecond after the limit had room again fails, and uncertain intervals are read in the limiter's favour.
 * Times are microseconds; every limit here has a period of 1000 µs.
 */
class RefusalJudgeTest {
    private static final long PERIOD = 1000;

    private static RefusalJudge judge(Algorithm algorithm, long permits, long burst, long... admissions) {
        Intervals list = new Intervals();
        for (int i = 0; i < admissions.length; i += 2) {
            list.add(admissions[i], admissions[i + 1]);
        }
        return new RefusalJudge(algorithm, permits, PERIOD, burst, list);
    }

    @Test
    void gcraRefusesWhileTheTheoreticalArrivalTimeIsMoreThanBurstMinusOneIntervalsAhead() {
        // Two permits taken at 0 with a burst of 2 (T = 1000): TAT = 2000, so the next is free from 1000 on.
        RefusalJudge judge = judge(Algorithm.GCRA, 1, 2, 0, 0, 0, 0);
        assertThat(judge.justified(0, 0)).isTrue();
        assertThat(judge.justified(999, 999)).isTrue();
        // The microsecond in which the permit came back: a repeated known refusal may still fall in it.
        assertThat(judge.justified(1000, 1000)).isTrue();
        assertThat(judge.justified(1001, 1001)).isFalse();
        assertThat(judge.freePermits(1001, 1001)).isEqualTo(1.0);
        assertThat(judge.justified(1001, 5000)).isFalse();
        assertThat(judge.freePermits(1500, 1500)).isEqualTo(1.499);
    }

    @Test
    void gcraCountsAnAdmissionInFlightAsIfItCameJustBefore() {
        // Two admissions in flight around 200 (burst 2): both may have come before a refusal at 200.
        RefusalJudge judge = judge(Algorithm.GCRA, 1, 2, 0, 500, 100, 600);
        assertThat(judge.justified(200, 200)).isTrue();
        // Before the second was even sent, only the first can have come: one permit was still free.
        assertThat(judge.justified(50, 60)).isFalse();
        // A refusal whose interval reaches past the second admission's sending is given that moment.
        assertThat(judge.justified(50, 100)).isTrue();
        // Both answered by 600, replayed at 500 and 600: TAT = max(500 + 1000, 600) + 1000 = 2500, free from 1500.
        assertThat(judge.justified(1499, 1499)).isTrue();
        assertThat(judge.justified(1501, 1501)).isFalse();
    }

    @Test
    void anUnknownOutcomeMayHaveBeenAdmittedAtAnyTimeAfterItWasSent() {
        Intervals list = new Intervals();
        list.add(0, Intervals.OPEN);
        RefusalJudge judge = new RefusalJudge(Algorithm.GCRA, 1, PERIOD, 1, list);
        assertThat(judge.justified(50_000, 50_000)).isTrue();
        RefusalJudge window = new RefusalJudge(Algorithm.SLIDING_WINDOW_LOG, 1, PERIOD, 1, list);
        assertThat(window.justified(50_000, 50_000)).isTrue();
    }

    @Test
    void slidingLogCountsAdmissionsThatMayLieInTheWindowEndingAtTheRefusal() {
        RefusalJudge judge = judge(Algorithm.SLIDING_WINDOW_LOG, 2, 2, 0, 10, 5, 20);
        assertThat(judge.justified(900, 900)).isTrue();
        // At 1019 the first (answered by 10) has left the window (t - period = 19); the second may not have.
        assertThat(judge.justified(1020, 1030)).isFalse();
        assertThat(judge.freePermits(1020, 1030)).isEqualTo(1.0);
        // A refusal sent at 1009 may have been decided while both were in the window.
        assertThat(judge.justified(1009, 1030)).isTrue();

        // An entry counts while its time > now - period: admitted at 0, it is gone at 1000.
        RefusalJudge one = judge(Algorithm.SLIDING_WINDOW_LOG, 1, 1, 0, 0);
        assertThat(one.justified(999, 999)).isTrue();
        assertThat(one.justified(1000, 1000)).isTrue(); // the known-refusal microsecond
        assertThat(one.justified(1001, 1001)).isFalse();
    }

    @Test
    void fixedWindowCountsAdmissionsThatMayLieInTheRefusalsAlignedWindow() {
        // Answered at 950: it lies in the window [0, 1000).
        RefusalJudge judge = judge(Algorithm.FIXED_WINDOW, 1, 1, 900, 950);
        assertThat(judge.justified(960, 990)).isTrue();
        assertThat(judge.justified(1000, 1000)).isTrue(); // the known-refusal microsecond
        assertThat(judge.justified(1001, 1001)).isFalse();
        assertThat(judge.justified(1001, 1999)).isFalse();
        // An interval reaching back into the full window is given that window.
        assertThat(judge.justified(995, 1500)).isTrue();
        // Sent before the window ended and answered after it began: it may lie in either.
        RefusalJudge straddling = judge(Algorithm.FIXED_WINDOW, 1, 1, 990, 1010);
        assertThat(straddling.justified(995, 995)).isTrue();
        assertThat(straddling.justified(1005, 1005)).isTrue();
        assertThat(straddling.justified(985, 988)).isFalse();
        assertThat(straddling.justified(2001, 2001)).isFalse();
    }

    @Test
    void intervalsSurviveTheirTextForm() {
        Intervals list = new Intervals();
        list.add(1_760_000_000_000_000L, 1_760_000_000_000_250L);
        list.add(1_760_000_000_000_100L, Intervals.OPEN);
        list.add(1_759_999_999_999_000L, 1_759_999_999_999_000L);
        Intervals back = Intervals.decode(list.encode());
        assertThat(back.size()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(back.sent(i)).isEqualTo(list.sent(i));
            assertThat(back.received(i)).isEqualTo(list.received(i));
        }
        assertThat(back.closed()).isEqualTo(2);
        assertThat(Intervals.decode(new Intervals().encode()).size()).isZero();
    }
}

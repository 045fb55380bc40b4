package dev.baton.cli;

import dev.baton.BatonAdmin;
import java.util.List;

/** The table of a rate limiter's limits, as {@code inspect} and {@code limiter inspect} print it. */
final class RateLimitTable {
    private RateLimitTable() {
    }

    static Table of(List<BatonAdmin.LimitState> limits) {
        Table t = new Table("LIMIT", "ALGORITHM", "PERMITS", "PERIOD", "USED", "REMAINING", "FULL AGAIN IN");
        for (BatonAdmin.LimitState l : limits) {
            t.row(l.index(), l.algorithm().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                    l.permits() == 0 ? "?" : l.permits(), HumanDuration.format(l.period()), l.used(),
                    l.remaining() < 0 ? "?" : l.remaining(), HumanDuration.format(l.resetAfter()));
        }
        return t;
    }
}

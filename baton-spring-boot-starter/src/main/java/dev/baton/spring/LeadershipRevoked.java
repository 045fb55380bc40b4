package dev.baton.spring;

import dev.baton.Leadership;
import dev.baton.RevocationReason;
import java.util.Objects;

/**
 * Published in the application context when a leadership of this instance in an election declared under
 * {@code baton.elections} ends, once per {@link LeadershipGranted}. Stop acting as leader when it comes.
 *
 * <p>Published synchronously on the Baton thread of the election's candidacy, after the grant of the same leadership
 * (see {@link LeadershipGranted}). {@link LeaderOnly} methods of the election no longer run when this is published.
 * On shutdown the starter closes its candidacies before the Baton closes, so a leader's listeners get this event
 * (reason {@link RevocationReason#CLOSED}) while the context still runs.
 */
public class LeadershipRevoked extends LeadershipEvent {

    private static final long serialVersionUID = 1L;

    /** Why the leadership ended. */
    private final RevocationReason reason;

    /**
     * @param source     what published the event (the starter's election candidates)
     * @param election   the election's name
     * @param leadership the leadership that ended
     * @param reason     why it ended
     * @throws NullPointerException if an argument is null
     */
    public LeadershipRevoked(Object source, String election, Leadership leadership, RevocationReason reason) {
        super(source, election, leadership);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * @return why it ended
     */
    public RevocationReason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LeadershipRevoked{election=" + election() + ", epoch=" + epoch() + ", reason=" + reason + "}";
    }
}

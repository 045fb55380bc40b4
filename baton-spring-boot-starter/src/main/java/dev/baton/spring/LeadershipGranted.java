package dev.baton.spring;

import dev.baton.Leadership;

/**
 * Published in the application context when this instance is elected leader of an election declared under
 * {@code baton.elections}. Every {@code LeadershipGranted} is followed, for the same leadership, by exactly one
 * {@link LeadershipRevoked}.
 *
 * <p>Published synchronously on the Baton thread of the election's candidacy (never on a Redis client thread), in
 * order: a listener ({@code @EventListener}) sees the grant before the revocation of the same leadership, and the
 * next leadership's grant after both. A listener that blocks delays that election's next event; one that throws is
 * logged, and the candidacy goes on. {@link LeaderOnly} methods of the election already run when this is published.
 */
public class LeadershipGranted extends LeadershipEvent {

    private static final long serialVersionUID = 1L;

    /**
     * @param source     what published the event (the starter's election candidates)
     * @param election   the election's name
     * @param leadership the new leadership
     * @throws NullPointerException if an argument is null
     */
    public LeadershipGranted(Object source, String election, Leadership leadership) {
        super(source, election, leadership);
    }

    @Override
    public String toString() {
        return "LeadershipGranted{election=" + election() + ", epoch=" + epoch() + "}";
    }
}

package dev.baton.spring;

import dev.baton.Leadership;
import java.util.Objects;
import org.springframework.context.ApplicationEvent;

/**
 * A change of this instance's leadership in an election declared under {@code baton.elections}: a
 * {@link LeadershipGranted} or a {@link LeadershipRevoked}. Listen for this type to see both, in order.
 */
public abstract class LeadershipEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    /** The election's name. */
    private final String election;

    /** The leadership; not serialized, it lives in this process only. */
    private final transient Leadership leadership;

    /**
     * @param source     what published the event (the starter's election candidates)
     * @param election   the election's name
     * @param leadership the leadership that began or ended
     * @throws NullPointerException if an argument is null
     */
    protected LeadershipEvent(Object source, String election, Leadership leadership) {
        super(source);
        this.election = Objects.requireNonNull(election, "election");
        this.leadership = Objects.requireNonNull(leadership, "leadership");
    }

    /**
     * @return the election's name
     */
    public String election() {
        return election;
    }

    /**
     * @return the leadership's epoch, its fencing token ({@link Leadership#epoch()})
     */
    public long epoch() {
        return leadership.epoch();
    }

    /**
     * @return the leadership: valid from its {@link LeadershipGranted} until its {@link LeadershipRevoked}
     */
    public Leadership leadership() {
        return leadership;
    }
}

package dev.baton.spring;

import dev.baton.BatonException;

/**
 * A {@link LeaderOnly} method with {@link WhenNotLeader#THROW} was called while this instance did not lead its
 * election, and did not run. The message names the election and the method, never an argument.
 */
public class NotLeaderException extends BatonException {

    private static final long serialVersionUID = 1L;

    /** The election this instance did not lead. */
    private final String election;

    /**
     * @param election the election's name
     * @param message  the message
     */
    public NotLeaderException(String election, String message) {
        super(message);
        this.election = election;
    }

    /**
     * @return the name of the election this instance did not lead
     */
    public String election() {
        return election;
    }
}

package dev.baton;

/**
 * Redis could not be reached, or did not answer within the configured
 * {@link BatonConfig#commandTimeout() command timeout}. The message names the endpoint (host and port, never
 * credentials). The {@link Baton} that threw it stays usable: once Redis answers again, calls succeed again.
 *
 * <p>When this is thrown from an acquire call, the outcome on the Redis side is unknown: the script may have run
 * just before the answer was lost. Such an acquisition has no holder that could renew it, so it blocks others for
 * at most one lease and then expires.
 */
public class BatonUnavailableException extends BatonException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, naming the endpoint (host and port) and never credentials
     * @param cause   the client's failure (a timeout, a refused connection...), or null if none is known
     */
    public BatonUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

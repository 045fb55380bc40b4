package dev.baton;

/**
 * Base of the exceptions Baton throws itself. Unchecked: a coordination failure is rarely something the caller can
 * recover from locally, and {@link java.util.concurrent.locks.Lock} methods cannot declare checked exceptions.
 */
public class BatonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception without a cause.
     *
     * @param message what went wrong
     */
    public BatonException(String message) {
        super(message);
    }

    /**
     * Creates an exception with the failure that caused it.
     *
     * @param message what went wrong
     * @param cause   the underlying failure, or null if none is known
     */
    public BatonException(String message, Throwable cause) {
        super(message, cause);
    }
}

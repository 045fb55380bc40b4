package dev.baton;

/**
 * Base of the exceptions Baton throws itself. Unchecked: a coordination failure is rarely something the caller can
 * recover from locally, and {@link java.util.concurrent.locks.Lock} methods cannot declare checked exceptions.
 */
public class BatonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BatonException(String message) {
        super(message);
    }

    public BatonException(String message, Throwable cause) {
        super(message, cause);
    }
}

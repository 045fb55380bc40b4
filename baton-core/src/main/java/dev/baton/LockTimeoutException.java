package dev.baton;

/**
 * The wait for a lock ran out before the lock could be acquired. Thrown by {@link DistributedLock#acquire} and used
 * to complete the future of {@link DistributedLock#acquireAsync}. When it is thrown, nothing is left behind: the
 * caller holds no lock, no subscription and no renewal.
 */
public class LockTimeoutException extends BatonException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which lock was not acquired, and the wait that ran out
     */
    public LockTimeoutException(String message) {
        super(message);
    }
}

package dev.baton.spring.aop;

/**
 * A {@link dev.baton.spring.DistributedLock}, {@link dev.baton.spring.RateLimited} or
 * {@link dev.baton.spring.LeaderOnly} annotation is used in a way that cannot work: on a method Spring's proxies cannot
 * intercept, called from inside its own class, with an attribute that does not parse, naming an election that is not
 * declared. Thrown while the application context starts, so that it fails instead of running the method
 * unprotected; the message names the class, the method and what to change.
 */
public class AnnotationMisuseException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong and where, and how to fix it
     */
    public AnnotationMisuseException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong and where, and how to fix it
     * @param cause   the parser's or converter's failure
     */
    public AnnotationMisuseException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.baton.spring.diagnostics;

import dev.baton.BatonException;
import dev.baton.BatonUnavailableException;
import dev.baton.spring.aop.AnnotationMisuseException;
import java.util.Locale;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Describes Baton's startup failures in Spring Boot's "APPLICATION FAILED TO START" report, with an action, instead
 * of the stack trace of the {@code BeanCreationException} chain they arrive in. It looks down the failure's cause
 * chain for the first of:
 * <ul>
 *   <li>{@link BatonUnavailableException}: Redis could not be reached (the message names the endpoint); the action
 *       is to check that Redis runs there and the {@code spring.data.redis.*} / {@code baton.*} properties;</li>
 *   <li>{@link AnnotationMisuseException}: a {@code @DistributedLock} or {@code @RateLimited} that cannot work (the
 *       message names the method and the change);</li>
 *   <li>any other {@link BatonException}: refused credentials, a missing ACL permission (pointing at docs/acl.md), TLS
 *       and topology mistakes, each with Baton's explanation;</li>
 *   <li>an {@link IllegalArgumentException} or {@link IllegalStateException} thrown by Baton's own code (a malformed
 *       URI or setting, which {@code BatonConfig} and the starter's checks name).</li>
 * </ul>
 * Anything else is left to Boot's other analyzers (returns null).
 *
 * <p>Never includes a password: the report quotes only Baton's messages, which name endpoints and properties and
 * never quote credentials or a URI's user info, and adds fixed text; causes from Redis' client are not quoted.
 * Stateless and thread-safe; registered in {@code META-INF/spring.factories}.
 */
public final class BatonFailureAnalyzer implements FailureAnalyzer {

    /** Where to connect from, for the actions. */
    private static final String CONNECTION_PROPERTIES = "the spring.data.redis.* properties (url, host, port, "
            + "username, password, ssl, sentinel, cluster) or baton.redlock.nodes, or the application's own Baton bean";

    /** Creates the analyzer; Spring Boot does. */
    public BatonFailureAnalyzer() {
    }

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getClass().getName().startsWith("org.springframework.boot.")) {
                // Boot's own (a property that does not bind or that Baton's starter refused by name): Boot's analyzers
                // describe those, property and value, better than Baton's cause underneath could.
                return null;
            }
            if (t instanceof BatonUnavailableException unavailable) {
                return unreachable(unavailable);
            }
            if (t instanceof AnnotationMisuseException misuse) {
                return new FailureAnalysis("A Baton annotation cannot work as used: " + misuse.getMessage(),
                        "Change the method or the annotation as the description says. docs/spring-annotations.md "
                                + "(\"Misuse is caught at startup\") lists each case.", misuse);
            }
            if (t instanceof BatonException refused) {
                return refused(refused);
            }
            if ((t instanceof IllegalArgumentException || t instanceof IllegalStateException) && thrownByBaton(t)) {
                return new FailureAnalysis("Baton's configuration cannot be used: " + t.getMessage(),
                        "Correct the setting the description names: " + CONNECTION_PROPERTIES + ", or a baton.* "
                                + "property. Baton never shows a password, so check it where it is set; a password "
                                + "in a URL must be percent-encoded.", t);
            }
        }
        return null;
    }

    private static FailureAnalysis unreachable(BatonUnavailableException e) {
        return new FailureAnalysis("Baton could not connect to Redis while the application started: "
                + e.getMessage() + ".",
                "Make sure Redis is running and reachable from this host at that address (host, port, firewall, TLS "
                        + "or not), or correct where Baton connects: " + CONNECTION_PROPERTIES + ". Each attempt "
                        + "waits baton.command-timeout (else spring.data.redis.timeout, else 3s).", e);
    }

    private static FailureAnalysis refused(BatonException e) {
        String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        String m = message.toLowerCase(Locale.ROOT);
        String action;
        if (m.contains("docs/acl.md") || m.contains("permission")) {
            action = "Give the Redis user Baton connects as the ACL rule of docs/acl.md (Baton's keys and channels "
                    + "under baton.namespace, and the commands it runs), or connect as a user that has it.";
        } else if (m.contains("credentials") || m.contains("password") || m.contains("authentication")) {
            action = "Check the user name and password Baton connects with: spring.data.redis.username and "
                    + "spring.data.redis.password, or the user info of spring.data.redis.url or baton.redlock.nodes "
                    + "(percent-encoded). Baton never shows the password, so check it where it is set, best in the "
                    + "environment rather than a committed file.";
        } else {
            action = "Do as the description says; where Baton connects comes from " + CONNECTION_PROPERTIES
                    + ", its tuning from the baton.* properties.";
        }
        return new FailureAnalysis("Baton could not start: " + message, action, e);
    }

    /**
     * Whether the exception was thrown by Baton's code, core ({@code dev.baton}, {@code dev.baton.internal.*}) or the
     * starter ({@code dev.baton.spring.*}), judging by its top stack frame; not by an application that happens to live
     * under {@code dev.baton}.
     */
    static boolean thrownByBaton(Throwable t) {
        StackTraceElement[] trace = t.getStackTrace();
        if (trace.length == 0) {
            return false;
        }
        String type = trace[0].getClassName();
        int dot = type.lastIndexOf('.');
        String pkg = dot < 0 ? "" : type.substring(0, dot);
        return pkg.equals("dev.baton") || type.startsWith("dev.baton.internal.") || type.startsWith("dev.baton.spring.");
    }
}

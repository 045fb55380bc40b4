package dev.baton.spring.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import org.springframework.util.ClassUtils;

/**
 * Whether a method's result is its value (it runs on the calling thread) or a promise of one whose work runs later,
 * elsewhere: a Reactor {@code Mono} or {@code Flux}, or a {@link CompletionStage}. An annotation's guard must then be
 * applied when that work runs, not around the call that merely builds it.
 */
enum ReturnStyle {
    /** A plain value, or void. */
    BLOCKING,
    /** A Reactor {@code Mono}. */
    MONO,
    /** A Reactor {@code Flux}. */
    FLUX,
    /** A {@link CompletionStage}, {@link java.util.concurrent.CompletableFuture} included. */
    COMPLETION_STAGE,
    /** Another Reactive Streams publisher, which the starter cannot wrap. */
    OTHER_PUBLISHER;

    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
            ReturnStyle.class.getClassLoader());
    private static final String PUBLISHER = "org.reactivestreams.Publisher";

    /**
     * @param method the method
     * @return how its result relates to its work
     */
    static ReturnStyle of(Method method) {
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type)) {
            return COMPLETION_STAGE;
        }
        if (REACTOR && reactor.core.publisher.Mono.class.isAssignableFrom(type)) {
            return MONO;
        }
        if (REACTOR && reactor.core.publisher.Flux.class.isAssignableFrom(type)) {
            return FLUX;
        }
        if (implementsNamed(type, PUBLISHER)) {
            return OTHER_PUBLISHER;
        }
        return BLOCKING;
    }

    /** @return whether the result is a promise of work that runs later */
    boolean isAsynchronous() {
        return this != BLOCKING;
    }

    private static boolean implementsNamed(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
            for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(c)) {
                if (i.getName().equals(name)) {
                    return true;
                }
            }
        }
        return false;
    }
}

package dev.baton.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;

/** Checks that a failure shows no secret anywhere a log or a user could read it. */
public final class Secrets {
    private Secrets() {
    }

    /**
     * Asserts that no secret appears in the failure's message, nor in the message of any of its causes or of what they
     * suppressed (Lettuce reports one failure per node that way).
     */
    public static void assertNotShown(Throwable failure, String... secrets) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> queue = new ArrayDeque<>();
        queue.add(failure);
        while (!queue.isEmpty()) {
            Throwable t = queue.poll();
            if (!seen.add(t)) {
                continue;
            }
            for (String secret : secrets) {
                assertThat(String.valueOf(t)).as("%s in the failure or its causes", t.getClass().getName())
                        .doesNotContain(secret);
            }
            if (t.getCause() != null) {
                queue.add(t.getCause());
            }
            queue.addAll(java.util.List.of(t.getSuppressed()));
        }
    }
}

package dev.baton.support;

import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.RevocationReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link LeadershipListener} that records its calls and checks, as they come, what the API promises about them:
 * never two at once, never on a Redis client thread, every {@code revoked} right after the {@code elected} of the same
 * leadership. A broken promise is recorded as a violation for the test to assert on.
 */
public final class LeadershipRecorder implements LeadershipListener {

    /** One call: elected (reason null) or revoked. */
    public record Call(long epoch, RevocationReason reason, String thread) {
        public boolean elected() {
            return reason == null;
        }
    }

    private final List<Call> calls = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final AtomicInteger inside = new AtomicInteger();

    @Override
    public void elected(Leadership leadership) {
        enter();
        try {
            synchronized (this) {
                if (!calls.isEmpty() && calls.get(calls.size() - 1).elected()) {
                    violations.add("elected " + leadership.epoch() + " before the previous leadership was revoked");
                }
                if (!leadership.isValid()) {
                    violations.add("elected with a leadership that is not valid: " + leadership);
                }
                calls.add(new Call(leadership.epoch(), null, Thread.currentThread().getName()));
            }
        } finally {
            inside.decrementAndGet();
        }
    }

    @Override
    public void revoked(Leadership leadership, RevocationReason reason) {
        enter();
        try {
            synchronized (this) {
                Call last = calls.isEmpty() ? null : calls.get(calls.size() - 1);
                if (last == null || !last.elected() || last.epoch() != leadership.epoch()) {
                    violations.add("revoked " + leadership.epoch() + " without its elected right before: " + last);
                }
                if (leadership.isValid()) {
                    violations.add("revoked while the leadership is still valid: " + leadership);
                }
                calls.add(new Call(leadership.epoch(), reason, Thread.currentThread().getName()));
            }
        } finally {
            inside.decrementAndGet();
        }
    }

    private void enter() {
        if (inside.incrementAndGet() != 1) {
            synchronized (this) {
                violations.add("two calls at once");
            }
        }
        String thread = Thread.currentThread().getName();
        if (!thread.startsWith("baton-election-")) {
            synchronized (this) {
                violations.add("called on thread " + thread);
            }
        }
    }

    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /** The reasons of the revocations so far, in order. */
    public synchronized List<RevocationReason> revocations() {
        return calls.stream().filter(c -> !c.elected()).map(Call::reason).toList();
    }

    /** The epochs of the elections so far, in order. */
    public synchronized List<Long> epochs() {
        return calls.stream().filter(Call::elected).map(Call::epoch).toList();
    }
}

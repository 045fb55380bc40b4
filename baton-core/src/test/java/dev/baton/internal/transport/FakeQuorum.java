package dev.baton.internal.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The masters of a Redlock as {@link FakeTransport}s, one per master, behind a real {@link QuorumTransport} (built with
 * its test seam {@code QuorumTransport.over}): a test answers each master's calls by hand, in any order, and so
 * decides which master grants, refuses, is slow or never answers.
 */
public final class FakeQuorum {
    public final List<FakeTransport> masters;
    public final QuorumTransport transport;

    private FakeQuorum(List<FakeTransport> masters) {
        this.masters = List.copyOf(masters);
        this.transport = QuorumTransport.over(masters, Duration.ofSeconds(1));
    }

    /** {@code n} masters, none of which has been called yet. */
    public static FakeQuorum of(int n) {
        List<FakeTransport> masters = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            masters.add(new FakeTransport(Duration.ofSeconds(1)));
        }
        return new FakeQuorum(masters);
    }

    /** Master {@code i}. */
    public FakeTransport master(int i) {
        return masters.get(i);
    }

    /** The one unanswered call of {@code script} on each master, in the masters' order. */
    public List<FakeTransport.Call> next(Script script) {
        return masters.stream().map(m -> m.next(script)).toList();
    }

    /** Every call of {@code script} that the masters got, all masters together. */
    public List<FakeTransport.Call> calls(Script script) {
        return masters.stream().flatMap(m -> m.calls(script).stream()).toList();
    }
}

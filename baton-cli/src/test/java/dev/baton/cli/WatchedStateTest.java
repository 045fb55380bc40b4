package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LeaderInfo;
import dev.baton.LockInfo;
import dev.baton.LockType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What {@code baton watch} reports between two snapshots: the cases a live test cannot time reliably. */
class WatchedStateTest {
    private static final Duration POLL = Duration.ofMillis(250);

    @Test
    void aFreeNameIsReportedFreeAtFirst() {
        assertThat(events(free().initially())).containsExactly("free");
    }

    @Test
    void anotherHolderBetweenTwoPollsIsAHandOver() {
        List<WatchedState.Change> changes = held(LockType.LOCK, holder("b", 11, 30_000))
                .since(held(LockType.LOCK, holder("a", 10, 20_000)), POLL);
        assertThat(events(changes)).containsExactly("handover");
        assertThat(changes.get(0).previous().token()).isEqualTo(10);
        assertThat(changes.get(0).hold().token()).isEqualTo(11);
    }

    @Test
    void aHoldGoneWithLeaseLeftWasReleasedAndOneWhoseLeaseRanOutExpired() {
        assertThat(events(free().since(held(LockType.LOCK, holder("a", 10, 20_000)), POLL)))
                .containsExactly("released");
        assertThat(events(free().since(held(LockType.LOCK, holder("a", 10, 100)), POLL)))
                .containsExactly("expired");
    }

    @Test
    void anElectionReadThroughItsLeaderHasNoLeaseSoItsEndIsAReleaseNeverAGuess() {
        WatchedState leading = WatchedState.of(Optional.of(new LeaderInfo("a", "host", 1, Instant.now(), 7)));
        WatchedState none = WatchedState.of(Optional.empty());
        assertThat(events(leading.since(none, POLL))).containsExactly("acquired");
        assertThat(events(none.since(leading, POLL))).containsExactly("released");
    }

    @Test
    void semaphoreLeasesComeAndGoOneByOneWithWaitersAndTotal() {
        LockInfo.Holder one = semaphoreHolder("a", 10);
        LockInfo.Holder two = semaphoreHolder("b", 11);
        WatchedState before = WatchedState.of(LockInfo.of("s", LockType.SEMAPHORE, List.of(one), 10, 0, 2));
        WatchedState after = WatchedState.of(LockInfo.of("s", LockType.SEMAPHORE, List.of(two), 11, 3, 4));
        // Not a hand-over: a semaphore's leases do not exclude each other.
        assertThat(events(after.since(before, POLL))).containsExactly("released", "acquired", "waiting", "permits");
        assertThat(after.since(before, POLL).get(2).value()).isEqualTo(3);
        assertThat(after.since(before, POLL).get(3).value()).isEqualTo(4);
    }

    @Test
    void aHeldObjectOfAnotherKindUnderTheSameNameIsFollowedToo() {
        LockInfo plain = LockInfo.of("n", LockType.LOCK, List.of(holder("a", 10, 20_000)), 10, 0, 0);
        LockInfo fair = LockInfo.of("n", LockType.FAIR, List.of(fairHolder("b", 5)), 5, 1, 0);
        WatchedState both = WatchedState.of(plain.withOtherKinds(List.of(fair)));
        assertThat(events(both.initially())).containsExactly("held", "held", "waiting");
        assertThat(events(WatchedState.of(plain).since(both, POLL))).containsExactly("released", "waiting");
    }

    private static WatchedState free() {
        return WatchedState.of(LockInfo.of("n", LockType.LOCK, List.of(), 0, 0, 0));
    }

    private static WatchedState held(LockType kind, LockInfo.Holder holder) {
        return WatchedState.of(LockInfo.of("n", kind, List.of(holder), holder.fencingToken(), 0, 0));
    }

    private static LockInfo.Holder holder(String instance, long token, long leaseLeftMillis) {
        return new LockInfo.Holder(instance, "host", 1, "main", true, 1, Duration.ofMillis(leaseLeftMillis), token);
    }

    private static LockInfo.Holder fairHolder(String instance, long token) {
        return new LockInfo.Holder(instance, "host", 1, "main", true, 1, Duration.ofSeconds(30), token,
                LockType.FAIR, 1);
    }

    private static LockInfo.Holder semaphoreHolder(String instance, long token) {
        return new LockInfo.Holder(instance, "host", 1, "main", true, 1, Duration.ofSeconds(30), token,
                LockType.SEMAPHORE, 1);
    }

    private static List<String> events(List<WatchedState.Change> changes) {
        return changes.stream().map(WatchedState.Change::event).toList();
    }
}

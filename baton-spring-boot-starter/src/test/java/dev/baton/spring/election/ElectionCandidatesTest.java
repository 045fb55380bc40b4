package dev.baton.spring.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Candidacy;
import dev.baton.LeaderElection;
import dev.baton.LeaderInfo;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.RevocationReason;
import dev.baton.spring.LeadershipGranted;
import dev.baton.spring.LeadershipRevoked;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The lifecycle and bookkeeping of {@link ElectionCandidates} on fake elections (the Redis side is
 * {@code LeaderElectionIT}'s): only enabled elections are joined, the local leadership changes before each event is
 * published, events come in the listener's order, and stopping withdraws from every election.
 */
class ElectionCandidatesTest {

    /** The events published, in order; records what the candidates said of the leadership when each was published. */
    private final List<String> published = new ArrayList<>();
    private ElectionCandidates candidates;

    private final ApplicationEventPublisher publisher = event -> {
        if (event instanceof LeadershipGranted granted) {
            published.add("granted " + granted.election() + " " + granted.epoch() + " leading="
                    + candidates.leadership(granted.election()).isPresent());
        } else if (event instanceof LeadershipRevoked revoked) {
            published.add("revoked " + revoked.election() + " " + revoked.epoch() + " " + revoked.reason()
                    + " leading=" + candidates.leadership(revoked.election()).isPresent());
        }
    };

    @Test
    void joinsTheEnabledElectionsAndPublishesEachChangeAfterUpdatingTheLocalState() {
        FakeElection reports = new FakeElection("reports");
        FakeElection idle = new FakeElection("idle");
        Map<String, LeaderElection> declared = new LinkedHashMap<>();
        declared.put("reports", reports);
        declared.put("idle", idle);
        candidates = new ElectionCandidates(declared, Set.of("reports"), publisher);
        assertThat(candidates.names()).containsExactly("reports", "idle");
        assertThat(candidates.isCandidate("reports")).isTrue();
        assertThat(candidates.isCandidate("idle")).isFalse();
        assertThat(candidates.isRunning()).isFalse();

        candidates.start();
        assertThat(candidates.isRunning()).isTrue();
        assertThat(reports.listeners).hasSize(1);
        assertThat(idle.listeners).isEmpty();
        assertThat(candidates.leadership("reports")).isEmpty();

        FakeLeadership first = new FakeLeadership(7);
        reports.elect(first);
        assertThat(candidates.leadership("reports")).containsSame(first);
        first.valid = false; // the local lease estimate ran out before the revocation came
        assertThat(candidates.leadership("reports")).isEmpty();
        reports.revoke(RevocationReason.LOST);
        FakeLeadership second = new FakeLeadership(9);
        reports.elect(second);
        assertThat(published).containsExactly("granted reports 7 leading=true",
                "revoked reports 7 LOST leading=false", "granted reports 9 leading=true");

        candidates.start(); // already running: nothing joins twice
        assertThat(reports.listeners).hasSize(1);
        candidates.stop();
        assertThat(candidates.isRunning()).isFalse();
        assertThat(reports.closed).isEqualTo(1);
        assertThat(published).last().isEqualTo("revoked reports 9 CLOSED leading=false");
        assertThat(candidates.leadership("reports")).isEmpty();
    }

    @Test
    void anUndeclaredElectionIsRefusedNamingTheDeclaredOnes() {
        candidates = new ElectionCandidates(Map.of("reports", new FakeElection("reports")), Set.of(), publisher);
        assertThatThrownBy(() -> candidates.leadership("nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'nope'").hasMessageContaining("baton.elections.nope.enabled=true")
                .hasMessageContaining("[reports]");
    }

    @Test
    void aListenerThatThrowsDoesNotReachTheCandidacy() {
        FakeElection reports = new FakeElection("reports");
        candidates = new ElectionCandidates(Map.of("reports", reports), Set.of("reports"), event -> {
            throw new IllegalStateException("listener failed");
        });
        candidates.start();
        FakeLeadership leadership = new FakeLeadership(1);
        reports.elect(leadership);
        assertThat(candidates.leadership("reports")).containsSame(leadership);
        candidates.stop();
        assertThat(reports.closed).isEqualTo(1);
    }

    /** An election whose candidacies are driven by the test; closing a leading one revokes it, as Baton's does. */
    private static final class FakeElection implements LeaderElection {
        private final String name;
        final List<LeadershipListener> listeners = new ArrayList<>();
        int closed;
        private Leadership current;

        void elect(Leadership leadership) {
            current = leadership;
            listeners.get(0).elected(leadership);
        }

        void revoke(RevocationReason reason) {
            Leadership ended = current;
            current = null;
            listeners.get(0).revoked(ended, reason);
        }

        FakeElection(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Candidacy join(LeadershipListener listener) {
            listeners.add(listener);
            FakeElection election = this;
            return new Candidacy() {
                @Override
                public boolean isLeader() {
                    return false;
                }

                @Override
                public Optional<Leadership> leadership() {
                    return Optional.empty();
                }

                @Override
                public void close() {
                    election.closed++;
                    if (election.current != null) {
                        election.revoke(RevocationReason.CLOSED);
                    }
                }
            };
        }

        @Override
        public Leadership awaitLeadership(Duration wait) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<LeaderInfo> leader() {
            return Optional.empty();
        }
    }

    /** A leadership whose validity the test sets. */
    private static final class FakeLeadership implements Leadership {
        private final long epoch;
        boolean valid = true;

        FakeLeadership(long epoch) {
            this.epoch = epoch;
        }

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public void resign() {
            valid = false;
        }

        @Override
        public String lockName() {
            return "reports";
        }

        @Override
        public long fencingToken() {
            return epoch;
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public CompletableFuture<Void> lost() {
            return new CompletableFuture<>();
        }

        @Override
        public void release() {
            resign();
        }

        @Override
        public void releaseAfter(Duration delay) {
            resign();
        }

        @Override
        public void close() {
            resign();
        }
    }
}

package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Deployment;
import dev.baton.support.LeadershipRecorder;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.TopologyExtension;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leader election on real Redis, with each candidate in a {@link Baton} of its own (another process, as far as Redis
 * can tell): one leader at a time, epochs that only grow, the listener's promises (order, one call at a time, the
 * candidacy's thread), and every way a leadership ends, each with its reason. Processes killed and paused are
 * {@code ElectionProcessesIT}'s.
 */
class ElectionIT {
    /** Long, so that a hand-over that comes quickly proves it did not wait for a lease. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);
    /** Short, for the tests about losing a leadership. */
    private static final Duration SHORT_LEASE = Duration.ofMillis(1500);
    /** Well below {@link #LONG_LEASE}, generous for a loaded machine. */
    private static final Duration HANDOVER_BOUND = Duration.ofSeconds(10);

    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private final List<Baton> batons = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        batons.forEach(Baton::close);
    }

    private Baton baton(Deployment deployment, Duration lease) {
        Baton baton = Baton.connect(deployment.patientBuilder().watchdogLease(lease).build());
        batons.add(baton);
        return baton;
    }

    private record Candidate(Baton baton, LeadershipRecorder recorder, Candidacy candidacy) {
    }

    private List<Candidate> join(Deployment deployment, int count, Duration lease) {
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Baton baton = baton(deployment, lease);
            LeadershipRecorder recorder = new LeadershipRecorder();
            candidates.add(new Candidate(baton, recorder, baton.election("scheduler").join(recorder)));
        }
        return candidates;
    }

    private static Candidate awaitOneLeader(List<Candidate> candidates) {
        await().atMost(HANDOVER_BOUND).until(() -> candidates.stream().filter(c -> c.candidacy().isLeader()).count()
                == 1);
        Candidate leader = candidates.stream().filter(c -> c.candidacy().isLeader()).findFirst().orElseThrow();
        assertThat(candidates.stream().filter(c -> c.candidacy().isLeader())).containsExactly(leader);
        return leader;
    }

    @OnEveryTopology
    void oneOfThreeLeadsAndEveryoneCanReadWhoWithItsEpoch() {
        Deployment deployment = redis.deployment();
        List<Candidate> candidates = join(deployment, 3, LONG_LEASE);
        Candidate leader = awaitOneLeader(candidates);

        Leadership leadership = leader.candidacy().leadership().orElseThrow();
        assertThat(leadership.epoch()).isEqualTo(leadership.fencingToken()).isPositive();
        assertThat(leadership.lockName()).isEqualTo("scheduler");
        Baton bystander = baton(deployment, LONG_LEASE);
        LeaderInfo info = bystander.election("scheduler").leader().orElseThrow();
        assertThat(info.instance()).isEqualTo(leader.baton().instanceId());
        assertThat(info.epoch()).isEqualTo(leadership.epoch());
        assertThat(info.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(info.since()).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));
        assertThat(bystander.election("nobody-runs-for-this").leader()).isEmpty();
        assertThat(leader.baton().heldLocks()).anySatisfy(h -> {
            assertThat(h.type()).isEqualTo(LockType.ELECTION);
            assertThat(h.fencingToken()).isEqualTo(leadership.epoch());
        });
        // Operators see the leader in inspect(name), as the holder of the name's election.
        LockInfo inspected = bystander.inspect("scheduler");
        assertThat(inspected.kind()).isEqualTo(LockType.ELECTION);
        assertThat(inspected.isLocked()).isTrue();
        assertThat(inspected.holder()).hasValueSatisfying(h -> {
            assertThat(h.batonInstance()).isEqualTo(leader.baton().instanceId());
            assertThat(h.fencingToken()).isEqualTo(leadership.epoch());
            assertThat(h.kind()).isEqualTo(LockType.ELECTION);
        });
        // The election's lock is its own: a plain lock of the same name is free.
        assertThat(bystander.lock("scheduler").tryLock()).isTrue();
        candidates.forEach(c -> assertThat(c.recorder().violations()).isEmpty());
    }

    @Test
    void aResignationHandsOverAtOnceAndTheResignerStaysInTheRace() {
        List<Candidate> candidates = join(redis.deployment(), 3, LONG_LEASE);
        List<Long> epochs = new ArrayList<>();
        // Every resignation hands over to another candidate well within the lease, with a larger epoch.
        for (int round = 0; round < 4; round++) {
            Candidate leader = awaitOneLeader(candidates);
            Leadership leadership = leader.candidacy().leadership().orElseThrow();
            epochs.add(leadership.epoch());
            leadership.resign();
            assertThat(leadership.isValid()).isFalse();
            assertThatThrownBy(leadership::resign).isInstanceOf(IllegalMonitorStateException.class);
            await().atMost(HANDOVER_BOUND).until(() -> leader.recorder().revocations().size()
                    == leader.recorder().epochs().size());
            assertThat(leader.recorder().revocations()).last().isEqualTo(RevocationReason.RESIGNED);
            Candidate next = awaitOneLeader(candidates);
            assertThat(next.candidacy().leadership().orElseThrow().epoch()).isGreaterThan(leadership.epoch());
        }
        assertThat(epochs).isSorted().doesNotHaveDuplicates();
        // The resigners campaign on: with the others gone, the first of them leads again.
        Candidate last = awaitOneLeader(candidates);
        candidates.stream().filter(c -> c != last).forEach(c -> c.candidacy().close());
        last.candidacy().close();
        Candidate first = candidates.get(0);
        assertThat(first.recorder().revocations()).isNotEmpty().doesNotContainNull();
        candidates.forEach(c -> assertThat(c.recorder().violations()).isEmpty());
    }

    @Test
    void closingTheLeadersCandidacyRevokesItBeforeCloseReturnsAndElectsAnother() {
        List<Candidate> candidates = join(redis.deployment(), 2, LONG_LEASE);
        Candidate leader = awaitOneLeader(candidates);
        leader.candidacy().close();
        assertThat(leader.recorder().revocations()).containsExactly(RevocationReason.CLOSED);
        assertThat(leader.candidacy().isLeader()).isFalse();
        Candidate other = candidates.get(candidates.get(0) == leader ? 1 : 0);
        await().atMost(HANDOVER_BOUND).until(() -> other.candidacy().isLeader());
        leader.candidacy().close(); // idempotent
        assertThat(leader.recorder().calls()).hasSize(2);
    }

    @Test
    void closingTheLeadersBatonResignsSoAnotherLeadsLongBeforeTheLeaseRunsOut() {
        List<Candidate> candidates = join(redis.deployment(), 2, LONG_LEASE);
        Candidate leader = awaitOneLeader(candidates);
        leader.baton().close();
        assertThat(leader.recorder().revocations()).containsExactly(RevocationReason.CLOSED);
        Candidate other = candidates.get(candidates.get(0) == leader ? 1 : 0);
        await().atMost(HANDOVER_BOUND).until(() -> other.candidacy().isLeader());
    }

    @Test
    void aLeaderWhoseLeadershipVanishesFromRedisIsToldLostAndAnElectionFollows() {
        Deployment deployment = redis.deployment();
        List<Candidate> candidates = join(deployment, 2, SHORT_LEASE);
        Candidate leader = awaitOneLeader(candidates);
        long epoch = leader.candidacy().leadership().orElseThrow().epoch();
        deployment.command("baton:election:{scheduler}", "DEL", "baton:election:{scheduler}");
        await().atMost(HANDOVER_BOUND).until(() -> leader.recorder().revocations().contains(RevocationReason.LOST));
        await().atMost(HANDOVER_BOUND).until(() -> candidates.stream().anyMatch(c -> c.candidacy().isLeader()
                && c.candidacy().leadership().orElseThrow().epoch() > epoch));
        candidates.forEach(c -> assertThat(c.recorder().violations()).isEmpty());
    }

    @Test
    void aLeaderCutOffFromRedisIsRevokedWhileRedisIsStillSilent() {
        Deployment deployment = redis.deployment();
        Baton baton = Baton.connect(deployment.builder().watchdogLease(SHORT_LEASE)
                .commandTimeout(Duration.ofMillis(300)).build());
        batons.add(baton);
        LeadershipRecorder recorder = new LeadershipRecorder();
        Candidacy candidacy = baton.election("scheduler").join(recorder);
        await().atMost(HANDOVER_BOUND).until(candidacy::isLeader);
        RedisServer server = deployment.masters().get(0);
        server.pause();
        try {
            // Told by the local lease estimate alone, while Redis answers nobody (it could elect no one yet).
            await().atMost(SHORT_LEASE.multipliedBy(4)).until(() -> !recorder.revocations().isEmpty());
            assertThat(recorder.revocations()).containsExactly(RevocationReason.UNAVAILABLE);
            assertThat(candidacy.isLeader()).isFalse();
        } finally {
            server.resume();
        }
        // The candidacy stays in the race and leads again once Redis is back.
        await().atMost(HANDOVER_BOUND).until(candidacy::isLeader);
        assertThat(recorder.violations()).isEmpty();
    }

    @Test
    void awaitLeadershipWaitsForTheLeaderToResignAndTimesOutWhileItLeads() throws Exception {
        Deployment deployment = redis.deployment();
        LeaderElection first = baton(deployment, LONG_LEASE).election("scheduler");
        LeaderElection second = baton(deployment, LONG_LEASE).election("scheduler");
        Leadership leading = first.awaitLeadership(Duration.ZERO);
        assertThatThrownBy(() -> second.awaitLeadership(Duration.ofMillis(300)))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining("scheduler");
        Thread resigner = new Thread(() -> {
            await().pollDelay(Duration.ofMillis(200)).until(() -> true);
            leading.resign();
        });
        resigner.start();
        Leadership next = second.awaitLeadership(HANDOVER_BOUND);
        assertThat(next.epoch()).isGreaterThan(leading.epoch());
        assertThat(first.leader().orElseThrow().epoch()).isEqualTo(next.epoch());
        resigner.join();
        next.resign();
        assertThat(first.leader()).isEmpty();
    }

    @Test
    void listenerEventsTellEveryLeadershipAndItsEnd() {
        Deployment deployment = redis.deployment();
        List<Object> events = new CopyOnWriteArrayList<>();
        BatonListener listener = new BatonListener() {
            @Override
            public void leaderElected(LeaderElected event) {
                events.add(event);
            }

            @Override
            public void leaderRevoked(LeaderRevoked event) {
                events.add(event);
            }
        };
        Baton baton = Baton.connect(deployment.patientBuilder().listener(listener).build());
        batons.add(baton);
        LeadershipRecorder recorder = new LeadershipRecorder();
        Candidacy candidacy = baton.election("scheduler").join(recorder);
        await().atMost(HANDOVER_BOUND).until(candidacy::isLeader);
        long epoch = candidacy.leadership().orElseThrow().epoch();
        candidacy.close();
        await().atMost(HANDOVER_BOUND).until(() -> events.size() == 2);
        assertThat(events.get(0)).isEqualTo(new BatonListener.LeaderElected("scheduler", epoch, baton.instanceId()));
        assertThat(events.get(1)).isInstanceOfSatisfying(BatonListener.LeaderRevoked.class, r -> {
            assertThat(r.epoch()).isEqualTo(epoch);
            assertThat(r.reason()).isEqualTo(RevocationReason.CLOSED);
        });
    }

    @Test
    void badArgumentsAreRefusedBeforeAnyRedisCall() {
        Deployment deployment = redis.deployment();
        Baton baton = baton(deployment, LONG_LEASE);
        long scripts = deployment.scriptsRun();
        assertThatThrownBy(() -> baton.election(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> baton.election(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        LeaderElection election = baton.election("scheduler");
        assertThatThrownBy(() -> election.join(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> election.awaitLeadership(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> election.awaitLeadership(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
        assertThat(deployment.scriptsRun()).isEqualTo(scripts);
        baton.close();
        assertThatThrownBy(() -> election.join(new LeadershipRecorder())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anElectionOverFiveRedlockMastersGoesOnWithTwoOfThemDead() {
        try (RedisServers masters = RedisServers.start(5)) {
            List<Candidate> candidates = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Baton baton = Baton.connect(BatonConfig.builder().redlock(masters.uris().toArray(String[]::new))
                        .watchdogLease(Duration.ofSeconds(3)).commandTimeout(Duration.ofMillis(1000))
                        .recheckInterval(Duration.ofMillis(300)).build());
                batons.add(baton);
                LeadershipRecorder recorder = new LeadershipRecorder();
                candidates.add(new Candidate(baton, recorder, baton.election("scheduler").join(recorder)));
            }
            Candidate leader = awaitOneLeader(candidates);
            long epoch = leader.candidacy().leadership().orElseThrow().epoch();
            assertThat(candidates.get(0).baton().election("scheduler").leader().orElseThrow().epoch())
                    .isEqualTo(epoch);
            // inspect(name) on Redlock masters reads the election too, as a majority sees it.
            LockInfo seen = candidates.get(1).baton().inspect("scheduler");
            assertThat(seen.isLocked()).isTrue();
            assertThat(seen.kind()).isEqualTo(LockType.ELECTION);
            assertThat(seen.holder().orElseThrow().fencingToken()).isEqualTo(epoch);
            assertThat(seen.holder().orElseThrow().kind()).isEqualTo(LockType.ELECTION);
            masters.get(3).kill();
            masters.get(4).kill();
            // Three of five still make a majority. The leader may have held its own majority partly on the dead
            // masters: then its resignation cannot be confirmed (it counts as resigned all the same) and its grant
            // on the live ones expires with its lease; either way the survivors elect another, with a larger epoch.
            long newest = epoch;
            for (int round = 0; round < 2; round++) {
                Candidate current = awaitOneLeader(candidates);
                Leadership leadership = current.candidacy().leadership().orElseThrow();
                assertThat(leadership.epoch()).isGreaterThanOrEqualTo(newest);
                newest = leadership.epoch();
                try {
                    leadership.resign();
                } catch (BatonUnavailableException majorityPartlyOnDeadMasters) {
                    assertThat(leadership.isValid()).isFalse();
                }
                long resigned = newest;
                Candidate next = await().atMost(HANDOVER_BOUND).until(() -> candidates.stream()
                        .filter(c -> c.candidacy().leadership().map(l -> l.epoch() > resigned).orElse(false))
                        .findFirst(), Optional::isPresent).orElseThrow();
                newest = next.candidacy().leadership().orElseThrow().epoch();
                assertThat(IntStream.range(0, 3).filter(i -> candidates.get(i).candidacy().isLeader()).count())
                        .isEqualTo(1);
            }
            candidates.forEach(c -> assertThat(c.recorder().violations()).isEmpty());
        }
    }
}

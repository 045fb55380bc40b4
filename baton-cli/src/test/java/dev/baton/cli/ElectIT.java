package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonAdmin;
import dev.baton.LeaderInfo;
import dev.baton.cli.support.BatonProcess;
import dev.baton.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code baton elect} run as operators run it, two of them on one election: only the leader's command runs; when the
 * leader's baton is told to stop, its command stops and the other's starts; a leadership taken away stops the
 * command, which starts again when this candidate is elected again; a command that ends by itself ends baton.
 */
class ElectIT {
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final Pattern LEADER = Pattern.compile("leader (\\d+)");
    private static final String CHILD = "echo \"leader $BATON_FENCING_TOKEN $BATON_LOCK_NAME\"; exec sleep 120";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static RedisServer redis;
    private static Baton baton;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        baton = Baton.connect(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (baton != null) {
            baton.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void onlyTheLeadersCommandRunsAndTheOtherTakesOverWhenTheLeaderStops() {
        String name = name();
        try (BatonProcess first = elect(name, "sh", "-c", CHILD)) {
            awaitOutput(first, "leader ");
            long firstEpoch = epoch(first);
            assertThat(first.stdout()).contains("leader " + firstEpoch + " " + name);
            assertThat(leader(name).map(LeaderInfo::pid)).contains(first.process().pid());
            try (BatonProcess second = elect(name, "sh", "-c", CHILD)) {
                // While the first leads, the second campaigns without running its command.
                await().during(Duration.ofSeconds(3)).atMost(BOUND)
                        .until(() -> !second.stdout().contains("leader") && second.process().isAlive());

                first.signal("TERM");
                assertThat(first.waitFor(BOUND)).as("%s", first).isEqualTo(143); // its command's status
                awaitOutput(second, "leader ");
                assertThat(epoch(second)).isGreaterThan(firstEpoch);
                assertThat(leader(name).map(LeaderInfo::pid)).contains(second.process().pid());

                second.signal("TERM");
                assertThat(second.waitFor(BOUND)).as("%s", second).isEqualTo(143);
            }
        }
        await().atMost(BOUND).until(() -> leader(name).isEmpty());
    }

    @Test
    void aLeadershipTakenAwayStopsTheCommandAndItStartsAgainOnReElection() {
        String name = name();
        try (BatonProcess p = elect(name, "sh", "-c", CHILD)) {
            awaitOutput(p, "leader ");
            long before = epoch(p);
            assertThat(baton.admin().forceUnlock(name, BatonAdmin.Kind.ELECTION)).isTrue();
            await().atMost(BOUND).until(() -> p.stderr().contains("no longer leader of '" + name + "'"));
            await().atMost(BOUND).until(() -> epochs(p).size() == 2);
            assertThat(epochs(p).get(1)).isGreaterThan(before);
            assertThat(p.stderr()).contains("stopping 'sh'").contains("campaigning again");
            p.signal("TERM");
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(143);
        }
    }

    @Test
    void aCommandThatEndsByItselfEndsBatonWithItsStatusAndResigns() {
        String name = name();
        try (BatonProcess p = elect(name, "sh", "-c", "exit 4")) {
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(4);
        }
        assertThat(leader(name)).isEmpty(); // resigned, not left to expire
    }

    @Test
    void aCommandThatCannotBeStartedIsStatus126() {
        try (BatonProcess p = elect(name(), "/no/such/command")) {
            assertThat(p.waitFor(BOUND)).as("%s", p).isEqualTo(ExitStatus.CANNOT_RUN.code());
            assertThat(p.stderr()).contains("cannot run '/no/such/command'");
        }
    }

    private static BatonProcess elect(String name, String... command) {
        List<String> all = new ArrayList<>(List.of("elect", "--redis", redis.uri(), "--lease", "10s", "--grace", "2s",
                name, "--"));
        all.addAll(List.of(command));
        return BatonProcess.start(Map.of(), all.toArray(String[]::new));
    }

    private static Optional<LeaderInfo> leader(String name) {
        return baton.election(name).leader();
    }

    private static void awaitOutput(BatonProcess p, String text) {
        await().atMost(BOUND).until(() -> p.stdout().contains(text) || !p.process().isAlive());
        assertThat(p.stdout()).as("%s", p).contains(text);
    }

    private static long epoch(BatonProcess p) {
        return epochs(p).get(0);
    }

    private static List<Long> epochs(BatonProcess p) {
        List<Long> epochs = new ArrayList<>();
        Matcher m = LEADER.matcher(p.stdout());
        while (m.find()) {
            epochs.add(Long.parseLong(m.group(1)));
        }
        return epochs;
    }

    private static String name() {
        return "elect-it-" + NAMES.incrementAndGet();
    }
}

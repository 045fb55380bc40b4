package dev.baton.spring.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Leadership;
import dev.baton.spring.LeaderOnly;
import dev.baton.spring.LeadershipContext;
import dev.baton.spring.LeadershipGranted;
import dev.baton.spring.LeadershipRevoked;
import dev.baton.spring.NotLeaderException;
import dev.baton.spring.WhenNotLeader;
import dev.baton.spring.metrics.MicrometerBatonListener;
import dev.baton.test.RedisExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two instances of one application (two contexts, two Batons) on one Redis, each declaring the election
 * {@code reports} (and {@code idle}, disabled): exactly one leads, hears {@link LeadershipGranted} and runs its
 * {@link LeaderOnly} methods, which the other skips or refuses; the endpoint names the leader and its epoch; the
 * meters count the changes; closing the leader's context revokes its leadership (CLOSED) and hands it to the other
 * with a greater epoch.
 */
class LeaderElectionIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({Reports.class, Recorder.class})
    static class App {
    }

    /** Work only the leader does; the run returns the epoch it ran under. */
    public static class Reports {
        @LeaderOnly("reports")
        public Long run() {
            return LeadershipContext.currentEpoch();
        }

        @LeaderOnly(value = "reports", whenNotLeader = WhenNotLeader.THROW)
        public String strict() {
            return "ran";
        }

        @LeaderOnly("idle")
        public Optional<String> idle() {
            return Optional.of("ran");
        }
    }

    /** The leadership events heard, in order. */
    public static class Recorder {
        final List<String> events = new CopyOnWriteArrayList<>();

        @EventListener
        void granted(LeadershipGranted event) {
            events.add(event.election() + " granted " + event.epoch() + " " + (event.leadership().epoch()
                    == event.epoch()));
        }

        @EventListener
        void revoked(LeadershipRevoked event) {
            events.add(event.election() + " revoked " + event.epoch() + " " + event.reason());
        }
    }

    private static ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET).properties(
                "server.port=0", "spring.main.banner-mode=off",
                "spring.data.redis.host=" + redis.server().host(), "spring.data.redis.port=" + redis.server().port(),
                "baton.command-timeout=5s", "baton.recheck-interval=200ms",
                "baton.elections.reports.enabled=true", "baton.elections.idle.enabled=false",
                "management.endpoints.web.exposure.include=baton").run();
    }

    private static Optional<Leadership> leadership(ConfigurableApplicationContext context) {
        return context.getBean(ElectionCandidates.class).leadership("reports");
    }

    private static boolean leads(ConfigurableApplicationContext context) {
        return leadership(context).isPresent();
    }

    private static List<String> events(ConfigurableApplicationContext context) {
        return context.getBean(Recorder.class).events;
    }

    private static JsonNode get(ConfigurableApplicationContext context, String path) throws Exception {
        HttpResponse<String> response = getResponse(context, path);
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static HttpResponse<String> getResponse(ConfigurableApplicationContext context, String path)
            throws Exception {
        String port = context.getEnvironment().getProperty("local.server.port");
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double count(ConfigurableApplicationContext context, String meter, String... tags) {
        return context.getBean(MeterRegistry.class).find(meter).tags(tags).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private static double leaderGauge(ConfigurableApplicationContext context) {
        Gauge gauge = context.getBean(MeterRegistry.class).find(MicrometerBatonListener.ELECTION_LEADER)
                .tags("name", "reports").gauge();
        return gauge == null ? 0 : gauge.value();
    }

    @Test
    void oneOfTwoInstancesLeadsRunsTheLeaderOnlyWorkAndHandsOverWhenItsContextCloses() throws Exception {
        ConfigurableApplicationContext a = start();
        ConfigurableApplicationContext b = start();
        try {
            await().atMost(PATIENCE).until(() -> leads(a) || leads(b));
            ConfigurableApplicationContext leader = leads(a) ? a : b;
            ConfigurableApplicationContext follower = leader == a ? b : a;
            assertThat(leads(follower)).as("at most one leader").isFalse();
            long epoch = leadership(leader).orElseThrow().epoch();
            await().atMost(PATIENCE).until(() -> events(leader).contains("reports granted " + epoch + " true"));
            assertThat(events(leader)).containsExactly("reports granted " + epoch + " true");
            assertThat(events(follower)).isEmpty();

            // @LeaderOnly: the leader runs, under its epoch; the other skips or refuses; nobody runs a disabled one.
            assertThat(leader.getBean(Reports.class).run()).isEqualTo(epoch);
            assertThat(leader.getBean(Reports.class).strict()).isEqualTo("ran");
            assertThat(follower.getBean(Reports.class).run()).isNull();
            assertThatThrownBy(() -> follower.getBean(Reports.class).strict())
                    .isInstanceOfSatisfying(NotLeaderException.class, e -> assertThat(e.election())
                            .isEqualTo("reports"))
                    .hasMessageContaining("Reports.strict()").hasMessageContaining("election 'reports'");
            assertThat(leader.getBean(Reports.class).idle()).isEmpty();
            assertThat(follower.getBean(Reports.class).idle()).isEmpty();
            assertThat(LeadershipContext.currentLeadership()).as("closed after the method").isEmpty();

            // The endpoint: both instances name the same leader and epoch; each says whether it leads.
            String leaderInstance = leader.getBean(Baton.class).instanceId();
            for (ConfigurableApplicationContext instance : List.of(leader, follower)) {
                JsonNode elections = get(instance, "/actuator/baton").path("elections");
                assertThat(elections).hasSize(2);
                JsonNode reports = elections.get(0);
                assertThat(reports.path("name").asString()).isEqualTo("reports");
                assertThat(reports.path("candidate").asBoolean()).isTrue();
                assertThat(reports.path("leading").asBoolean()).isEqualTo(instance == leader);
                assertThat(reports.path("leader").path("instance").asString()).isEqualTo(leaderInstance);
                assertThat(reports.path("leader").path("epoch").asLong()).isEqualTo(epoch);
                assertThat(reports.path("leader").path("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
                assertThat(reports.path("leader").path("since").asString()).isNotBlank();
                assertThat(reports.path("error").isNull()).isTrue();
                JsonNode idle = elections.get(1);
                assertThat(idle.path("name").asString()).isEqualTo("idle");
                assertThat(idle.path("candidate").asBoolean()).isFalse();
                assertThat(idle.path("leading").asBoolean()).isFalse();
                assertThat(idle.path("leader").isNull()).isTrue();
            }
            assertThat(get(leader, "/actuator/baton").path("elections").get(0).path("epoch").asLong())
                    .isEqualTo(epoch);
            assertThat(get(follower, "/actuator/baton").path("elections").get(0).path("epoch").isNull()).isTrue();
            JsonNode one = get(follower, "/actuator/baton/elections/reports");
            assertThat(one.path("leader").path("instance").asString()).isEqualTo(leaderInstance);
            assertThat(getResponse(follower, "/actuator/baton/elections/nope").statusCode()).isEqualTo(404);

            // The meters: one leadership won, by the leader only.
            await().atMost(PATIENCE).until(() -> count(leader, MicrometerBatonListener.ELECTION_CHANGES,
                    "name", "reports", "outcome", "elected", "reason", "none") == 1 && leaderGauge(leader) == 1);
            assertThat(count(follower, MicrometerBatonListener.ELECTION_CHANGES, "name", "reports")).isZero();
            assertThat(leaderGauge(follower)).isZero();

            // Closing the leader's context withdraws it before its Baton closes: revoked, CLOSED, and handed over.
            List<String> leaderEvents = events(leader);
            leader.close();
            assertThat(leaderEvents).containsExactly("reports granted " + epoch + " true",
                    "reports revoked " + epoch + " CLOSED");
            await().atMost(PATIENCE).until(() -> leads(follower));
            long next = leadership(follower).orElseThrow().epoch();
            assertThat(next).isGreaterThan(epoch);
            await().atMost(PATIENCE).until(() -> events(follower).contains("reports granted " + next + " true"));
            assertThat(follower.getBean(Reports.class).run()).isEqualTo(next);
            assertThat(follower.getBean(Reports.class).strict()).isEqualTo("ran");
            JsonNode after = get(follower, "/actuator/baton/elections/reports");
            assertThat(after.path("leading").asBoolean()).isTrue();
            assertThat(after.path("leader").path("instance").asString())
                    .isEqualTo(follower.getBean(Baton.class).instanceId());
            assertThat(after.path("leader").path("epoch").asLong()).isEqualTo(next);
        } finally {
            b.close();
            a.close();
        }
    }

    @Test
    void aResignedLeadershipIsRevokedCountedAndTimedAndTheCandidacyIsElectedAgain() {
        try (ConfigurableApplicationContext context = start()) {
            await().atMost(PATIENCE).until(() -> leads(context));
            Leadership first = leadership(context).orElseThrow();
            first.resign();
            assertThat(context.getBean(Reports.class).run()).as("skipped once resigned").isNull();
            await().atMost(PATIENCE).until(() -> events(context).contains("reports revoked " + first.epoch()
                    + " RESIGNED"));
            // Still a candidate: alone in the race, it is elected again, under a greater epoch.
            await().atMost(PATIENCE).until(() -> leads(context));
            long second = leadership(context).orElseThrow().epoch();
            assertThat(second).isGreaterThan(first.epoch());
            await().atMost(PATIENCE).until(() -> count(context, MicrometerBatonListener.ELECTION_CHANGES,
                    "name", "reports", "outcome", "elected") == 2);
            assertThat(count(context, MicrometerBatonListener.ELECTION_CHANGES, "name", "reports",
                    "outcome", "revoked", "reason", "resigned")).isEqualTo(1);
            Timer led = context.getBean(MeterRegistry.class).find(MicrometerBatonListener.ELECTION_LEADERSHIP)
                    .tags("name", "reports", "reason", "resigned").timer();
            assertThat(led).isNotNull();
            assertThat(led.count()).isEqualTo(1);
            assertThat(leaderGauge(context)).isEqualTo(1);
            assertThat(events(context)).containsExactly("reports granted " + first.epoch() + " true",
                    "reports revoked " + first.epoch() + " RESIGNED", "reports granted " + second + " true");
        }
    }
}

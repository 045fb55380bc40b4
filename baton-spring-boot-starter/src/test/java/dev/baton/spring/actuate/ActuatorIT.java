package dev.baton.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.RateLimit;
import dev.baton.RateLimiter;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.test.RedisExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A whole application on a random port, with the starter, Spring MVC and Actuator: the {@code baton} health component
 * follows Redis (DOWN within the timeout when it stops), and {@code /actuator/baton} shows the locks this instance
 * holds, inspects any name (every kind held under it, with its holders), and peeks at a limiter without charging it.
 */
@SpringBootTest(classes = ActuatorIT.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"management.endpoints.web.exposure.include=health,baton",
                "management.endpoint.health.show-details=always", "baton.command-timeout=1s"})
class ActuatorIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> redis.server().host());
        registry.add("spring.data.redis.port", () -> redis.server().port());
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    Baton baton;

    @Autowired
    RateLimiterRegistry limiters;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthIsUpWithDetailsAndDownWithinTheTimeoutWhenRedisStops() throws Exception {
        HttpResponse<String> up = get("/actuator/health/baton");
        assertThat(up.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(up.body());
        assertThat(body.path("status").asString()).isEqualTo("UP");
        assertThat(body.path("details").path("endpoint").asString()).contains(String.valueOf(redis.server().port()));
        assertThat(body.path("details").path("topology").asString()).isEqualTo("standalone");
        assertThat(body.path("details").path("scripts").asString()).isEqualTo("loaded");
        // Redis lost its script cache (a restart, a failover, an operator): the check loads Baton's script again.
        redis.server().command("SCRIPT", "FLUSH");
        JsonNode afterFlush = JSON.readTree(get("/actuator/health/baton").body());
        assertThat(afterFlush.path("status").asString()).isEqualTo("UP");
        assertThat(afterFlush.path("details").path("scripts").asString()).isEqualTo("loaded");
        // Redis answers but may no longer run scripts for Baton's user: DOWN, refused, with Redis's reason.
        redis.server().command("ACL", "SETUSER", "default", "-evalsha", "-eval");
        try {
            HttpResponse<String> refused = get("/actuator/health/baton");
            assertThat(refused.statusCode()).isEqualTo(503);
            JsonNode details = JSON.readTree(refused.body()).path("details");
            assertThat(details.path("status").asString()).isEqualTo("REFUSED");
            assertThat(details.path("scripts").asString()).isEqualTo("refused");
            assertThat(details.path("error").asString()).containsIgnoringCase("NOPERM");
        } finally {
            redis.server().command("ACL", "SETUSER", "default", "+evalsha", "+eval");
        }

        redis.server().pause(); // connected, nothing answers: only the timeout ends the check
        try {
            long start = System.nanoTime();
            HttpResponse<String> down = get("/actuator/health/baton");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(JSON.readTree(down.body()).path("status").asString()).isEqualTo("DOWN");
            assertThat(JSON.readTree(down.body()).path("details").path("status").asString())
                    .isEqualTo("UNREACHABLE");
            assertThat(took).isLessThan(TIMEOUT.multipliedBy(3).plusSeconds(5));
        } finally {
            redis.server().resume();
        }
        redis.server().stop();
        try {
            HttpResponse<String> stopped = get("/actuator/health/baton");
            assertThat(stopped.statusCode()).isEqualTo(503);
        } finally {
            redis.server().restart();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> get("/actuator/health/baton").statusCode() == 200);
    }

    @Test
    void theEndpointListsTheLocksThisInstanceHoldsAndInspectsAnyLock() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        ExecutorService holder = Executors.newSingleThreadExecutor(r -> new Thread(r, "order-worker"));
        try {
            holder.submit(() -> {
                baton.lock("order:42").lock();
                held.countDown();
                done.await();
                baton.lock("order:42").unlock();
                return null;
            });
            assertThat(held.await(20, TimeUnit.SECONDS)).isTrue();

            JsonNode report = JSON.readTree(get("/actuator/baton").body());
            assertThat(report.path("instance").asString()).isEqualTo(baton.instanceId());
            JsonNode lock = report.path("heldLocks").get(0);
            assertThat(report.path("heldLocks").size()).isEqualTo(1);
            assertThat(lock.path("name").asString()).isEqualTo("order:42");
            assertThat(lock.path("type").asString()).isEqualTo("LOCK");
            assertThat(lock.path("thread").asString()).isEqualTo("order-worker");
            assertThat(lock.path("holdCount").asInt()).isEqualTo(1);
            assertThat(lock.path("fencingToken").asLong()).isPositive();
            assertThat(lock.path("watchdog").asBoolean()).isTrue();
            assertThat(lock.path("remainingLeaseMillis").asLong()).isPositive();
            assertThat(lock.path("since").asString()).isNotBlank();

            JsonNode inspected = JSON.readTree(get("/actuator/baton/locks/order:42").body());
            assertThat(inspected.path("locked").asBoolean()).isTrue();
            assertThat(inspected.path("kind").asString()).isEqualTo("LOCK");
            assertThat(inspected.path("holders").asInt()).isEqualTo(1);
            assertThat(inspected.path("holder").path("thread").asString()).isEqualTo("order-worker");
            assertThat(inspected.path("holder").path("kind").asString()).isEqualTo("LOCK");
            assertThat(inspected.path("holder").path("instance").asString()).isEqualTo(baton.instanceId());
            assertThat(inspected.path("lastFencingToken").asLong()).isEqualTo(lock.path("fencingToken").asLong());
        } finally {
            done.countDown();
            holder.shutdown();
            assertThat(holder.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                JSON.readTree(get("/actuator/baton").body()).path("heldLocks").isEmpty());
        JsonNode free = JSON.readTree(get("/actuator/baton/locks/order:42").body());
        assertThat(free.path("locked").asBoolean()).isFalse();
        assertThat(free.path("holder").isNull() || free.path("holder").isMissingNode()).isTrue();
    }

    @Test
    void aNameHeldByReadersAndASemaphoreIsReportedWithBothKindsAndEveryHolder() throws Exception {
        Lease reader1 = baton.readWriteLock("stock").readLock().acquire(Duration.ZERO);
        Lease reader2 = baton.readWriteLock("stock").readLock().acquire(Duration.ZERO);
        Lease permits = baton.semaphore("stock", 4).acquire(2, Duration.ZERO);

        JsonNode inspected = JSON.readTree(get("/actuator/baton/locks/stock").body());
        assertThat(inspected.path("locked").asBoolean()).isTrue();
        assertThat(inspected.path("kind").asString()).isEqualTo("READ");
        assertThat(inspected.path("holders").asInt()).isEqualTo(2);
        assertThat(inspected.path("allHolders").size()).isEqualTo(2);
        for (JsonNode reader : inspected.path("allHolders")) {
            assertThat(reader.path("kind").asString()).isEqualTo("READ");
            assertThat(reader.path("instance").asString()).isEqualTo(baton.instanceId());
            assertThat(reader.path("leaseOwned").asBoolean()).isTrue();
        }
        assertThat(inspected.path("otherKinds").size()).isEqualTo(1);
        JsonNode semaphore = inspected.path("otherKinds").get(0);
        assertThat(semaphore.path("kind").asString()).isEqualTo("SEMAPHORE");
        assertThat(semaphore.path("locked").asBoolean()).isTrue();
        assertThat(semaphore.path("permits").asInt()).isEqualTo(4);
        assertThat(semaphore.path("availablePermits").asInt()).isEqualTo(2);
        assertThat(semaphore.path("holder").path("permits").asInt()).isEqualTo(2);
        assertThat(semaphore.path("holder").path("fencingToken").asLong()).isEqualTo(permits.fencingToken());

        reader1.release();
        reader2.release();
        permits.release();
        JsonNode free = JSON.readTree(get("/actuator/baton/locks/stock").body());
        assertThat(free.path("locked").asBoolean()).isFalse();
        assertThat(free.path("kind").asString()).isEqualTo("LOCK");
        assertThat(free.path("holders").asInt()).isZero();
        assertThat(free.path("allHolders").size()).isZero();
        assertThat(free.path("otherKinds").size()).isZero();
    }

    @Test
    void aKnownLimiterIsPeekedWithoutChargingAndAnUnknownOneIs404() throws Exception {
        RateLimiter api = limiters.limiter("api", List.of(RateLimit.of(5, Duration.ofHours(1))));
        api.tryAcquire(2);
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = get("/actuator/baton/limiters/api");
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode limiter = JSON.readTree(response.body());
            assertThat(limiter.path("allowed").asBoolean()).isTrue();
            assertThat(limiter.path("remaining").asLong()).as("peeks charge nothing").isEqualTo(2);
            assertThat(limiter.path("limits").size()).isEqualTo(1);
        }
        assertThat(JSON.readTree(get("/actuator/baton").body()).path("rateLimiters").toString()).contains("api");
        assertThat(get("/actuator/baton/limiters/unknown").statusCode()).isEqualTo(404);
        assertThat(get("/actuator/baton/nothing/api").statusCode()).isEqualTo(404);
    }

    /** The application: auto-configuration, and a minimal limiter registry standing in for the starter's. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        RateLimiterRegistry rateLimiterRegistry(Baton baton) {
            Map<String, RateLimiter> known = new ConcurrentHashMap<>();
            return new RateLimiterRegistry() {
                @Override
                public RateLimiter limiter(String name, List<RateLimit> limits) {
                    return known.computeIfAbsent(name, n -> baton.rateLimiter(n, limits.toArray(RateLimit[]::new)));
                }

                @Override
                public Optional<RateLimiter> find(String name) {
                    return Optional.ofNullable(known.get(name));
                }

                @Override
                public Set<String> names() {
                    return Set.copyOf(known.keySet());
                }
            };
        }
    }
}

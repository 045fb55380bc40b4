package dev.baton.sale;

import dev.baton.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sale service, each its own JVM running the packaged jar, on one real redis-server: the lock,
 * the rate limit and the scheduled restock hold across the fleet, not just inside one process.
 */
class SaleFleetIT {

    private static final long STOCK = 100;
    private static final int BUYERS = 1_000;
    private static final int CLIENT_THREADS = 48;
    /** The restock runs every 2 s in this test, and holds its lock at least 1.5 s. */
    private static final Duration RESTOCK_PERIOD = Duration.ofSeconds(2);
    private static final Duration RESTOCK_WINDOW = Duration.ofSeconds(10);
    /** The buyer limit: {@link ItemController#BUYER_PERMITS} per minute. */
    private static final Duration BUYER_PERIOD = Duration.ofMinutes(1);

    private static RedisServer redis;
    private static final List<SaleInstance> instances = new ArrayList<>();
    private static final List<SaleApi> apis = new ArrayList<>();

    @BeforeAll
    static void startFleet() {
        redis = RedisServer.start();
        // Patient timeouts: this test counts sales, not outages, and on a loaded machine a 500 ms rate-limit decision
        // can time out (and answer 503, as a real outage should).
        String[] args = {"--spring.data.redis.url=" + redis.uri(), "--sale.restock.cron=*/2 * * * * *",
                "--sale.restock.min-hold=1500ms", "--sale.buyer-limit.period=1m", "--baton.command-timeout=10s",
                "--baton.rate-limit.timeout=10s"};
        // Both JVMs start at once: they would take twice as long one after the other.
        List<CompletableFuture<SaleInstance>> starting = List.of(
                CompletableFuture.supplyAsync(() -> SaleInstance.start("sale-fleet-1", args)),
                CompletableFuture.supplyAsync(() -> SaleInstance.start("sale-fleet-2", args)));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        RuntimeException failure = null;
        for (CompletableFuture<SaleInstance> instance : starting) {
            try {
                instances.add(instance.join());
                apis.add(new SaleApi(client, instances.get(instances.size() - 1).base()));
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure; // @AfterAll still stops whatever did start
        }
    }

    @AfterAll
    static void stopFleet() {
        try {
            instances.forEach(SaleInstance::close);
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    void thousandConcurrentBuyersOverTwoInstancesBuyExactlyTheStock() throws Exception {
        String item = "limited-edition"; // not in the catalogue, so the restock leaves it alone
        apis.get(0).setStock(item, STOCK);

        List<HttpResponse<String>> responses = new ArrayList<>();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENT_THREADS);
        try {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < BUYERS; i++) {
                SaleApi api = apis.get(i % apis.size());
                String user = "buyer-" + i;
                futures.add(clients.submit(() -> api.purchase(item, user)));
            }
            for (Future<HttpResponse<String>> future : futures) {
                responses.add(future.get());
            }
        } finally {
            clients.shutdownNow();
        }

        Map<Integer, Long> byStatus = responses.stream()
                .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
        assertThat(byStatus).as("responses by status; a sample: %s", responses.stream()
                        .filter(r -> r.statusCode() != 201 && r.statusCode() != 409).limit(3).map(HttpResponse::body)
                        .toList())
                .containsExactlyInAnyOrderEntriesOf(Map.of(201, STOCK, 409, BUYERS - STOCK));

        List<Receipt> receipts = responses.stream().filter(r -> r.statusCode() == 201).map(SaleApi::receipt)
                .sorted(Comparator.comparingLong(Receipt::remaining).reversed()).toList();
        // Every unit was sold once: the stock each buyer left behind runs 99, 98, ... 0 without gaps or repeats.
        assertThat(receipts).extracting(Receipt::remaining)
                .containsExactlyElementsOf(LongStream.range(0, STOCK).map(i -> STOCK - 1 - i).boxed().toList());
        // In the order of the writes (stock falling), each holder of the lock had a newer fencing token.
        assertThat(receipts).extracting(Receipt::fencingToken).isSorted().doesNotHaveDuplicates();

        ItemStock after = apis.get(1).item(item);
        assertThat(after.stock()).isZero();
        assertThat(after.lowestStock()).as("the lowest stock ever written").isZero();
        assertThat(after.lastFencingToken()).isGreaterThanOrEqualTo(receipts.get(receipts.size() - 1).fencingToken());
    }

    @Test
    void aBuyerPurchasingTooOftenGets429WithRetryAfterAndRateLimitHeaders() {
        String user = "greedy-" + System.nanoTime();
        Instant start = Instant.now();
        List<Integer> statuses = new ArrayList<>();
        HttpResponse<String> refused = null;
        // Alternating instances: the limit is one per buyer across the fleet, kept in Redis.
        for (int i = 0; i < 20 && refused == null; i++) {
            HttpResponse<String> response = apis.get(i % apis.size()).purchase("widget", user);
            statuses.add(response.statusCode());
            if (response.statusCode() == 429) {
                refused = response;
            }
        }
        Duration elapsed = Duration.between(start, Instant.now());

        assertThat(refused).as("a 429 among %s", statuses).isNotNull();
        List<Integer> before = statuses.subList(0, statuses.size() - 1);
        assertThat(before).as("statuses before the refusal").containsOnly(201);
        // GCRA with 5 per minute: a burst of 5, then one more every 12 s; a slow machine may have earned some.
        long emissionMillis = BUYER_PERIOD.toMillis() / ItemController.BUYER_PERMITS;
        assertThat((long) before.size()).isBetween(ItemController.BUYER_PERMITS,
                ItemController.BUYER_PERMITS + elapsed.toMillis() / emissionMillis + 1);

        // The next permit comes one emission interval (12 s) after the burst began, so the wait left is that less
        // the time the burst took, in whole seconds rounded up: never more than the interval, never much less.
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        long emissionSeconds = BUYER_PERIOD.toSeconds() / ItemController.BUYER_PERMITS;
        assertThat(retryAfter).isBetween(Math.max(1, emissionSeconds - elapsed.toSeconds() - 1), emissionSeconds);

        RateLimitField limit = RateLimitField.parse(refused.headers().firstValue("RateLimit").orElseThrow());
        RateLimitField policy = RateLimitField.parse(refused.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertThat(limit.name()).as("both fields describe the same policy").isEqualTo(policy.name());
        assertThat(policy.parameter("q")).isEqualTo(ItemController.BUYER_PERMITS);
        assertThat(policy.parameter("w")).isEqualTo(BUYER_PERIOD.toSeconds());
        assertThat(limit.parameter("r")).isZero();
        assertThat(limit.parameter("t")).isPositive().isLessThanOrEqualTo(policy.parameter("w"))
                .isGreaterThanOrEqualTo(retryAfter);
    }

    @Test
    void theScheduledRestockRunsOncePerPeriodAcrossTheFleet() {
        Instant windowStart = Instant.now();
        Instant windowEnd = windowStart.plus(RESTOCK_WINDOW);
        // Waits for the first run after the window, so that every period in it has had its chance to run.
        await("a restock after " + windowEnd).atMost(RESTOCK_WINDOW.plusMinutes(1))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> apis.get(0).restocks().stream().anyMatch(r -> r.startedAt().isAfter(windowEnd)));

        List<RestockRecord> runs = apis.get(1).restocks();
        Map<Long, List<RestockRecord>> byPeriod = runs.stream()
                .collect(Collectors.groupingBy(SaleFleetIT::period));
        assertThat(byPeriod.values()).as("runs by period: %s", byPeriod).allSatisfy(r -> assertThat(r).hasSize(1));
        // Every whole period inside the window ran once (the partial ones at either end may belong to neither).
        for (long p = period(windowStart) + 1; p < period(windowEnd); p++) {
            assertThat(byPeriod).as("runs by period: %s", byPeriod).containsKey(p);
        }
        assertThat(runs).extracting(RestockRecord::fencingToken).isSorted().doesNotHaveDuplicates();
    }

    /**
     * The 2-second period a run belongs to. The cron fires on even seconds; a run is filed under the period it was
     * scheduled for if it started up to 0.5 s early or 1.5 s late (the lock's minimum hold), which is the tolerance
     * the minimum hold gives the fleet.
     */
    private static long period(RestockRecord run) {
        return period(run.startedAt());
    }

    private static long period(Instant time) {
        return Math.floorDiv(time.toEpochMilli() + 500, RESTOCK_PERIOD.toMillis());
    }
}

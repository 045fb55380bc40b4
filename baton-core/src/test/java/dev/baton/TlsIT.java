package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Measure;
import dev.baton.support.Secrets;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import dev.baton.test.TlsFiles;
import io.lettuce.core.SslOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Baton over TLS with certificates the test makes itself (a private CA, as most deployments that run their own Redis
 * have): it locks and rate-limits through a CA given to {@code trustedCertificates}, with a client certificate where
 * the server requires one, on one server, a cluster and behind Sentinel; and every way of getting TLS wrong is told as what it is,
 * quickly, without the password.
 */
class TlsIT {
    private static final String PASSWORD = "tls-Pa55-secret";
    /** Generous for a first TLS handshake in a fresh JVM on a loaded machine; short enough to show a bound. */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** Generous: the point is that a refusal is told at once, not after a timeout; the machine may be loaded. */
    private static final long BOUND_MILLIS = TIMEOUT.toMillis() + 8_000;

    private static TlsFiles tls;
    private static TlsFiles stranger;
    /** TLS only, a password, no client certificate needed. */
    private static RedisServer server;
    /** TLS only, a client certificate signed by the CA required. */
    private static RedisServer mutual;

    @BeforeAll
    static void start() {
        tls = TlsFiles.generate();
        stranger = TlsFiles.generate();
        server = RedisServer.startTls(tls, List.of("--requirepass", PASSWORD));
        mutual = RedisServer.startTls(tls, List.of("--tls-auth-clients", "yes"));
        // Loads and warms up what the first TLS connection of a JVM needs, so that no time bound below measures it;
        // with room to spare for that (a loaded machine once took longer than the tests' 2 s here).
        Baton.connect(builder(server.uri()).commandTimeout(Duration.ofSeconds(30)).password(PASSWORD.toCharArray())
                .trustedCertificates(tls.caCertificate()).build()).close();
    }

    @AfterAll
    static void stop() {
        try {
            server.close();
        } finally {
            mutual.close();
        }
    }

    private static BatonConfig.Builder builder(String uri) {
        // The rate limiter's own timeout (0.5 s by default) is the command timeout here: a loaded machine once took
        // longer for a decision over TLS on a cluster, and how fast a decision is is not what these tests are about.
        return BatonConfig.builder().uri(uri).commandTimeout(TIMEOUT).rateLimitTimeout(TIMEOUT)
                .watchdogLease(Duration.ofSeconds(6));
    }

    /**
     * For a connection that is meant to succeed: what these tests are about is that it works over TLS, not how fast.
     * The short {@link #TIMEOUT} stays where a refusal's bound is measured against it; a handshake on a loaded
     * machine once took longer than it on the way to a successful connection.
     */
    private static BatonConfig.Builder patientBuilder(String uri) {
        return builder(uri).commandTimeout(TestBatons.PATIENT_TIMEOUT).rateLimitTimeout(TestBatons.PATIENT_TIMEOUT);
    }

    @Test
    void aBatonTrustingThePrivateCaLocksAndRateLimitsOverTls() throws InterruptedException {
        BatonConfig config = patientBuilder(server.uri()).password(PASSWORD.toCharArray())
                .trustedCertificates(tls.caCertificate()).build();
        try (Baton baton = Baton.connect(config); Baton other = Baton.connect(config)) {
            DistributedLock lock = baton.lock("tls");
            assertThat(lock.tryLock()).isTrue();
            assertThat(lock.fencingToken()).isPositive();
            assertThat(other.lock("tls").isLocked()).isTrue();
            assertThat(other.lock("tls").tryLock(Duration.ZERO)).isFalse();
            assertThat(server.command("EXISTS", "baton:lock:{tls}:token")).as("written over TLS").isEqualTo("1");
            lock.unlock();
            assertThat(other.lock("tls").tryLock(Duration.ofSeconds(5))).isTrue();
            other.lock("tls").unlock();

            RateLimiter limiter = baton.rateLimiter("tls", RateLimit.of(2, Duration.ofHours(1)));
            assertThat(limiter.tryAcquire().allowed()).isTrue();
            assertThat(limiter.tryAcquire().allowed()).isTrue();
            assertThat(limiter.tryAcquire().allowed()).isFalse();
        }
    }

    @Test
    void aClientThatDoesNotTrustTheServersCaIsToldSoQuickly() {
        for (BatonConfig config : List.of(
                builder(server.uri()).password(PASSWORD.toCharArray()).build(), // the JVM's trust store
                builder(server.uri()).password(PASSWORD.toCharArray())
                        .trustedCertificates(stranger.caCertificate()).build())) {
            long start = System.nanoTime();
            Throwable refused = Measure.thrownBy(() -> Baton.connect(config).close());
            assertThat(Measure.millisSince(start)).as("told at once, not after a timeout").isLessThan(BOUND_MILLIS);
            assertThat(refused).isExactlyInstanceOf(BatonException.class)
                    .hasMessageContaining("Redis at 127.0.0.1:" + server.port())
                    .hasMessageContaining("presented a TLS certificate that is not trusted")
                    .hasMessageContaining("BatonConfig.Builder.trustedCertificates");
            Secrets.assertNotShown(refused, PASSWORD);
        }
    }

    @Test
    void mutualTlsNeedsAClientCertificateTheServerTrusts() {
        BatonConfig withCertificate = patientBuilder(mutual.uri()).trustedCertificates(tls.caCertificate())
                .clientCertificate(tls.clientCertificate(), tls.clientKey()).build();
        try (Baton baton = Baton.connect(withCertificate)) {
            assertThat(baton.lock("mutual").tryLock()).isTrue();
            baton.lock("mutual").unlock();
        }

        long start = System.nanoTime();
        assertThat(Measure.thrownBy(() -> Baton.connect(builder(mutual.uri())
                .trustedCertificates(tls.caCertificate()).build()).close()))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("requires a client certificate")
                .hasMessageContaining("BatonConfig.Builder.clientCertificate");
        assertThat(Measure.thrownBy(() -> Baton.connect(builder(mutual.uri()).trustedCertificates(tls.caCertificate())
                .clientCertificate(stranger.clientCertificate(), stranger.clientKey()).build()).close()))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("refused the client certificate Baton presented")
                .hasMessageContaining("unknown_ca");
        assertThat(Measure.millisSince(start)).isLessThan(2 * BOUND_MILLIS);
    }

    @Test
    void theApplicationMayBringItsOwnSslOptions() {
        SslOptions options = SslOptions.builder().jdkSslProvider()
                .trustManager(tls.caCertificate().toFile())
                .keyManager(tls.clientCertificate().toFile(), tls.clientKey().toFile(), null)
                .build();
        try (Baton baton = Baton.connect(patientBuilder(mutual.uri()).sslOptions(options).build())) {
            assertThat(baton.rateLimiter("own-options", RateLimit.of(1, Duration.ofHours(1))).tryAcquire().allowed())
                    .isTrue();
        }
    }

    /**
     * Lettuce words the TLS port's hang-up according to timing (a reset, a premature close, or, on a loaded machine,
     * "RedisHandshakeHandler not registered", which once made this test fail): ClosedEarlyTest gives each wording.
     */
    @Test
    void aPlainUriAgainstATlsPortSaysTheServerSpeaksTls() {
        String plain = "redis://:" + PASSWORD + "@127.0.0.1:" + server.port();
        long start = System.nanoTime();
        Throwable refused = Measure.thrownBy(() -> Baton.connect(builder(plain).build()).close());
        assertThat(Measure.millisSince(start)).isLessThan(BOUND_MILLIS);
        assertThat(refused).isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("Redis at 127.0.0.1:" + server.port() + " speaks TLS on that port, but the uri "
                        + "asks for plain Redis (redis://): use rediss://");
        Secrets.assertNotShown(refused, PASSWORD);
    }

    @Test
    void aClusterOverTlsIsFoundFromRedissSeeds() {
        try (RedisCluster cluster = RedisCluster.startTls(tls);
             Baton baton = Baton.connect(BatonConfig.builder().cluster(cluster.seedUris().get(0))
                     .trustedCertificates(tls.caCertificate()).commandTimeout(TIMEOUT).rateLimitTimeout(TIMEOUT)
                     .build())) {
            // Names whose keys live on different masters: the client reaches every node over TLS.
            for (String name : List.of("a", "b", "c", "d", "e")) {
                DistributedLock lock = baton.lock(name);
                assertThat(lock.tryLock()).isTrue();
                assertThat(cluster.masterForKey("baton:lock:{" + name + "}:token")
                        .command("EXISTS", "baton:lock:{" + name + "}:token")).isEqualTo("1");
                lock.unlock();
            }
            assertThat(List.of("a", "b", "c", "d", "e").stream()
                    .map(n -> cluster.masterForKey("baton:lock:{" + n + "}:token")).distinct().count())
                    .as("the names span several masters").isGreaterThan(1);
            assertThat(baton.rateLimiter("tls-cluster", RateLimit.of(1, Duration.ofHours(1))).tryAcquire().allowed())
                    .isTrue();
        }
    }

    @Test
    void sentinelOverTlsFindsTheMasterAndFollowsAFailover() {
        try (RedisSentinelGroup group = RedisSentinelGroup.startTls(tls);
             Baton baton = Baton.connect(builder(group.sentinelUri()).trustedCertificates(tls.caCertificate())
                     .recheckInterval(Duration.ofMillis(300)).build())) {
            assertThat(group.sentinelUri()).startsWith("rediss-sentinel://");
            RedisServer master = group.master();
            DistributedLock lock = baton.lock("tls-sentinel");
            lock.lock();
            long before = lock.fencingToken();
            lock.unlock();
            assertThat(master.command("EXISTS", "baton:lock:{tls-sentinel}:token")).isEqualTo("1");

            RedisServer promoted = group.failover();

            AtomicLong after = new AtomicLong();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                DistributedLock again = baton.lock("tls-sentinel");
                if (!again.tryLock()) {
                    return false;
                }
                after.set(again.fencingToken());
                again.unlock();
                return true;
            });
            assertThat(after.get()).isGreaterThan(before);
            assertThat(promoted.command("EXISTS", "baton:lock:{tls-sentinel}:token")).isEqualTo("1");
        }
    }
}

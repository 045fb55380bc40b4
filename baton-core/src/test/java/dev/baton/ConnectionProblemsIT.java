package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.baton.support.LogCapture;
import dev.baton.support.Measure;
import dev.baton.support.NotRedisServer;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a user is told when the connection is set up wrong, and what Baton logs when it goes wrong later: each mistake
 * named as what it is (not "could not be reached" for a configuration error), and never a password in a message or a
 * log line.
 */
class ConnectionProblemsIT {
    private static final String PASSWORD = "Pa55-w0rd#secret";
    /** As it must stand in a URI: the '#' percent-encoded. */
    private static final String ENCODED = URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8);

    private RedisServer server;
    private LogCapture log;

    @BeforeEach
    void start() {
        server = RedisServer.start(List.of("--databases", "4"));
        log = LogCapture.start();
    }

    @AfterEach
    void stop() {
        try {
            assertThat(String.join("\n", log.lines())).as("no log line carries the password")
                    .doesNotContain(PASSWORD).doesNotContain(ENCODED).doesNotContain("secret");
        } finally {
            log.close();
            server.close();
        }
    }

    @Test
    void aServerThatRequiresAPasswordSaysSoWhenNoneWasGiven() {
        requirePassword(PASSWORD);
        assertThatThrownBy(() -> TestBatons.connect(server.uri()))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("Redis at " + server.host() + ":" + server.port())
                .hasMessageContaining("requires authentication, and no password was given: put it in the uri as "
                        + "redis://:password@host:port (redis://user:password@host:port for an ACL user, "
                        + "percent-encoded), or give it as the configuration's password");
    }

    @Test
    void aWrongPasswordIsRefusedWithoutShowingIt() {
        requirePassword(PASSWORD);
        String wrong = "redis://:" + "wr0ng-" + ENCODED + "@" + server.host() + ":" + server.port();
        Throwable refused = Measure.thrownBy(() -> TestBatons.connect(wrong));
        assertThat(refused.getMessage()).doesNotContain("wr0ng").doesNotContain(PASSWORD).doesNotContain(ENCODED);
        if (server.binary().version().startsWith("6.") && refused instanceof BatonUnavailableException) {
            // Redis 6 may hang up on a wrong password in HELLO before its answer arrives: then a hint is all.
            assertThat(refused).hasMessageContaining("closed the connection while Baton was connecting (Redis 6 does "
                    + "that on a wrong password");
        } else {
            assertThat(refused).isExactlyInstanceOf(BatonException.class)
                    .hasMessageContaining("refused the credentials: wrong user name or password");
        }
    }

    @Test
    void credentialsGivenToTheBuilderAreUsedAndNeverShown() throws Exception {
        requirePassword(PASSWORD);
        char[] password = PASSWORD.toCharArray();
        // Nothing here is about timeouts: a loaded machine's slow handshake must not fail it.
        BatonConfig config = BatonConfig.builder().uri(server.uri()).password(password)
                .commandTimeout(Duration.ofSeconds(5)).build();
        Arrays.fill(password, '*'); // the caller may clear its array at once
        try (Baton baton = Baton.connect(config)) {
            DistributedLock lock = baton.lock("with-password");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
            assertThat(baton.toString()).doesNotContain(PASSWORD);
            assertThat(config.toString()).doesNotContain(PASSWORD).contains("password=***");
        }
    }

    @Test
    void aPasswordSupplierIsAskedAgainAtEachConnectionSoASecretCanRotate() {
        requirePassword(PASSWORD);
        AtomicReference<String> current = new AtomicReference<>(PASSWORD);
        AtomicInteger asked = new AtomicInteger();
        BatonConfig config = BatonConfig.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(5))
                .password(() -> {
                    asked.incrementAndGet();
                    return current.get().toCharArray();
                }).build();
        try (Baton baton = Baton.connect(config)) {
            RateLimiter limiter = baton.rateLimiter("rotating", RateLimit.of(100, Duration.ofHours(1)));
            assertThat(limiter.tryAcquire().allowed()).isTrue();
            int before = asked.get();
            String rotated = PASSWORD + "-2";
            current.set(rotated);
            try (Admin admin = new Admin(PASSWORD)) {
                admin.connection.sync().configSet("requirepass", rotated);
                admin.connection.sync().clientKill(KillArgs.Builder.typeNormal());
            }
            // Baton reconnects with the new secret by itself.
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                    .until(() -> limiter.tryAcquire().allowed());
            assertThat(asked.get()).isGreaterThan(before);
        }
    }

    @Test
    void aDatabaseOutOfRangeIsAConfigurationErrorNotAnOutage() {
        String uri = server.uri() + "/7"; // the server has databases 0 to 3
        assertThatThrownBy(() -> TestBatons.connect(uri))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("has no database 7")
                .hasMessageContaining("DB index is out of range");
        try (Baton inRange = TestBatons.connect(server.uri() + "/3")) {
            assertThat(inRange.lock("db3").tryLock()).isTrue();
        }
    }

    @Test
    void tlsAgainstAPlainPortSaysSo() {
        String uri = "rediss://" + server.host() + ":" + server.port();
        long start = System.nanoTime();
        assertThatThrownBy(() -> TestBatons.connect(uri))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessageContaining("answers plain, unencrypted Redis, but the uri asks for TLS (rediss://)");
        assertThat(Measure.millisSince(start)).as("within the command timeout and the probe").isLessThan(10_000);
    }

    @Test
    void aClosedPortIsUnavailableWithinTheTimeout() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> TestBatons.connect("redis://:" + ENCODED + "@127.0.0.1:" + closed))
                .isExactlyInstanceOf(BatonUnavailableException.class)
                .hasMessage("Redis at 127.0.0.1:" + closed + " could not be reached: nothing listens on that port "
                        + "(connection refused)");
        assertThat(Measure.millisSince(start)).isLessThan(10_000);
    }

    @Test
    void aPortThatAnswersHttpIsNotTakenForAnUnreachableRedis() throws IOException {
        try (NotRedisServer web = NotRedisServer.answering(NotRedisServer.HTTP_400)) {
            assertNotRedis(web, "redis", " (it answers like an HTTP server)");
            // The same care with TLS asked for: the port is no TLS port, and no Redis either.
            assertNotRedis(web, "rediss", " (it answers like an HTTP server)");
        }
    }

    @Test
    void aServerThatSendsAWebPageAtOnceIsNotRedis() throws IOException {
        // Lettuce reads the page as a reply and fails on its first byte: "Invalid first byte: 60 (<)".
        try (NotRedisServer page = NotRedisServer.greeting(NotRedisServer.HTML_PAGE)) {
            assertNotRedis(page, "redis", " (it answers like an HTTP server)");
        }
    }

    @Test
    void aServerOfAnotherProtocolIsNotRedis() throws IOException {
        try (NotRedisServer ssh = NotRedisServer.greeting(NotRedisServer.SSH_GREETING)) {
            assertNotRedis(ssh, "redis", "");
        }
    }

    @Test
    void aHostNameThatDoesNotResolveIsToldAsSuch() {
        String host = "nonexistent.invalid"; // RFC 2606: never resolves
        String resolver = resolverSays(host);
        long start = System.nanoTime();
        Throwable failure = Measure.thrownBy(() -> TestBatons.connect("redis://:" + ENCODED + "@" + host + ":6379"));
        assertThat(failure).isNotNull();
        assertThat(failure.getMessage()).doesNotContain(PASSWORD).doesNotContain(ENCODED);
        if (resolver.contains("Temporary failure")) {
            // A machine without a reachable name server: the same lookup may succeed later, so it is an outage.
            assertThat(failure).isExactlyInstanceOf(BatonUnavailableException.class).hasMessage("Redis at " + host
                    + ":6379 could not be reached: its host name '" + host + "' could not be resolved just now (the "
                    + "name service did not answer)");
        } else {
            assertThat(failure).isExactlyInstanceOf(BatonException.class).hasMessage("Redis at " + host + ":6379: "
                    + "host name '" + host + "' does not resolve (no such host is known to the name service): check "
                    + "the host of the uri");
        }
        assertThat(Measure.millisSince(start)).isLessThan(10_000);
    }

    /** What this machine's resolver says about a name that must not resolve. */
    private static String resolverSays(String host) {
        try {
            return "resolved to " + InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            return String.valueOf(e.getMessage());
        }
    }

    private static void assertNotRedis(NotRedisServer server, String scheme, String what) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> TestBatons.connect(server.uri(scheme)))
                .isExactlyInstanceOf(BatonException.class)
                .hasMessage("Redis at 127.0.0.1:" + server.port() + " answered, but not as Redis" + what + ": check the "
                        + "host and port of the uri");
        assertThat(Measure.millisSince(start)).as("within the command timeout and the probe").isLessThan(10_000);
    }

    @Test
    void lostConnectionsAndLostLeasesAreLogged() {
        try (Baton baton = TestBatons.connect("redis://:" + ENCODED + "@" + server.host() + ":" + server.port())) {
            Lease lease = baton.lock("logged").acquire(Duration.ZERO);
            server.pause();
            try {
                // Nothing renews the lease while Redis is frozen: the holder is told, and so is the log.
                await().atMost(Duration.ofSeconds(10)).until(() -> lease.lost().isDone());
            } finally {
                server.resume();
            }
            assertThat(log.lines(Level.WARN, "lost lock 'logged'")).hasSize(1);
            assertThat(log.lines(Level.WARN, "could not renew")).isNotEmpty();

            server.kill();
            await().atMost(Duration.ofSeconds(10)).until(() -> !log.lines(Level.WARN, "lost the command "
                    + "connection to Redis at " + server.host() + ":" + server.port()).isEmpty());
            server.restart();
            await().atMost(Duration.ofSeconds(10)).until(() -> !log.lines(Level.INFO, "reconnected the command "
                    + "connection").isEmpty());
            assertThat(baton.lock("after").tryLock()).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private void requirePassword(String password) {
        server.command("CONFIG", "SET", "requirepass", password);
    }

    /** A plain Lettuce connection that authenticates, for what the kit's password-less client cannot do. */
    private final class Admin implements AutoCloseable {
        final RedisClient client;
        final StatefulRedisConnection<String, String> connection;

        Admin(String password) {
            client = RedisClient.create(RedisURI.builder().withHost(server.host()).withPort(server.port())
                    .withPassword(password.toCharArray()).build());
            connection = client.connect();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }
}

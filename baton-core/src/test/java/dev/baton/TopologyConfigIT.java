package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.support.Measure;
import dev.baton.support.Secrets;
import dev.baton.test.RedisServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A topology configured wrong fails within the timeout, with a message that names what is wrong and where, and never
 * a password: sentinels or cluster seeds that refuse connections or never answer, a Sentinel uri pointed at a plain
 * server. (A wrong Sentinel password or master name: {@code SentinelPasswordsIT}; a cluster uri pointed at a plain
 * server: {@code ClusterIT}; TLS against a plain port and the reverse: {@code ConnectionProblemsIT}, {@code TlsIT}.)
 */
class TopologyConfigIT {
    private static final String PASSWORD = "topology-Pa55-secret";
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /**
     * Generous: the point is that a failure is told rather than retried for Lettuce's 60 s default, and the machine
     * may be loaded (closing the failed client alone may take a few seconds then).
     */
    private static final long BOUND_MILLIS = TIMEOUT.toMillis() + 8_000;

    /** Connecting fails within the bound, and no cause shows the password. */
    private static Throwable failure(Supplier<BatonConfig> config) {
        BatonConfig built = config.get();
        long start = System.nanoTime();
        Throwable failure = Measure.thrownBy(() -> Baton.connect(built).close());
        assertThat(Measure.millisSince(start)).as("told within the timeout").isLessThan(BOUND_MILLIS);
        assertThat(failure).isInstanceOf(BatonException.class);
        Secrets.assertNotShown(failure, PASSWORD);
        return failure;
    }

    private static List<Integer> closedPorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0));
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void sentinelsThatRefuseConnectionsAreUnavailableAndListed() throws IOException {
        List<Integer> ports = closedPorts(2);
        String uri = "redis-sentinel://:" + PASSWORD + "@127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1)
                + "#orders";
        assertThat(failure(() -> BatonConfig.builder().uri(uri).commandTimeout(TIMEOUT)
                .sentinelPassword(PASSWORD.toCharArray()).build()))
                .isExactlyInstanceOf(BatonUnavailableException.class)
                .hasMessage("None of the sentinels at 127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1)
                        + " could be reached (looking for master 'orders')");
    }

    @Test
    void sentinelsThatNeverAnswerAreUnavailableWithinTheTimeout() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            a.pause();
            b.pause(); // the kernel accepts connections, nobody answers: a partitioned or frozen sentinel
            String uri = "redis-sentinel://127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port() + "#orders";
            assertThat(failure(() -> BatonConfig.builder().uri(uri).commandTimeout(TIMEOUT)
                    .password(PASSWORD.toCharArray()).sentinelPassword(PASSWORD.toCharArray()).build()))
                    .isExactlyInstanceOf(BatonUnavailableException.class)
                    .hasMessage("None of the sentinels at 127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port()
                            + " answered within " + TIMEOUT + " (looking for master 'orders')");
        }
    }

    @Test
    void clusterSeedsThatAllRefuseAreListedWithoutCredentials() throws IOException {
        List<Integer> ports = closedPorts(3);
        List<String> seeds = ports.stream().map(p -> "redis://:" + PASSWORD + "@127.0.0.1:" + p).toList();
        assertThat(failure(() -> BatonConfig.builder().cluster(seeds.toArray(String[]::new)).commandTimeout(TIMEOUT)
                .build()))
                .isExactlyInstanceOf(BatonUnavailableException.class)
                .hasMessage("Redis at cluster 127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1) + ",127.0.0.1:"
                        + ports.get(2) + " could not be reached (none of the seeds answered)");
    }

    @Test
    void clusterSeedsThatNeverAnswerAreUnavailableWithinTheTimeout() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            a.pause();
            b.pause();
            assertThat(failure(() -> BatonConfig.builder().cluster(a.uri(), b.uri()).password(PASSWORD.toCharArray())
                    .commandTimeout(TIMEOUT).build()))
                    .isExactlyInstanceOf(BatonUnavailableException.class)
                    .hasMessage("Redis at cluster 127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port()
                            + " did not complete the connection within " + TIMEOUT);
        }
    }

    @Test
    void aSentinelUriPointedAtAPlainServerSaysItIsNoSentinel() {
        try (RedisServer server = RedisServer.start()) {
            String uri = "redis-sentinel://:" + PASSWORD + "@127.0.0.1:" + server.port() + "#orders";
            assertThat(failure(() -> BatonConfig.builder().uri(uri).commandTimeout(TIMEOUT).build()))
                    .isExactlyInstanceOf(BatonException.class)
                    .hasMessageContaining("The sentinels at 127.0.0.1:" + server.port() + " are not all sentinels")
                    .hasMessageContaining("does not know the SENTINEL command");
        }
    }
}

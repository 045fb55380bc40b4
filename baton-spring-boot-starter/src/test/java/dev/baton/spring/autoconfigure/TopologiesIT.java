package dev.baton.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import dev.baton.test.TlsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured Baton connects to every topology the test kit starts, from the {@code spring.data.redis.*}
 * properties an application already has (read through Boot's connection details), and takes and releases a lock
 * there.
 */
class TopologiesIT {
    private static final String DATA_PASSWORD = "data-Secret-7";
    private static final String SENTINEL_PASSWORD = "sentinel-Secret-9";
    private static final String ACL_PASSWORD = "acl-Secret-3";

    private static RedisServer server;
    private static RedisServer secured;
    private static RedisServer tlsServer;
    private static TlsFiles tls;
    private static RedisSentinelGroup sentinels;
    private static RedisCluster cluster;

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class,
                    BatonAutoConfiguration.class));

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        secured = RedisServer.start(List.of("--requirepass", DATA_PASSWORD));
        tls = TlsFiles.generate();
        tlsServer = RedisServer.startTls(tls, List.of("--tls-auth-clients", "yes"));
        sentinels = RedisSentinelGroup.startWithPasswords(DATA_PASSWORD, SENTINEL_PASSWORD);
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopRedis() {
        for (AutoCloseable c : new AutoCloseable[] {server, secured, tlsServer, sentinels, cluster}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // keep closing the others
            }
        }
    }

    /** The context's Baton takes and releases a lock, and is the only Baton there. */
    private static void takesALock(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed().hasSingleBean(Baton.class);
        DistributedLock lock = context.getBean(Baton.class).lock("topology-check");
        assertThat(lock.tryLock()).isTrue();
        long token = lock.fencingToken();
        assertThat(token).isPositive();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aServerByHostPortAndDatabase() {
        runner.withPropertyValues("spring.data.redis.host=" + server.host(),
                "spring.data.redis.port=" + server.port(), "spring.data.redis.database=3").run(context -> {
                    takesALock(context);
                    Baton baton = context.getBean(Baton.class);
                    assertThat(baton.config().uri()).isEqualTo("redis://" + server.host() + ":" + server.port() + "/3");
                    baton.lock("in-db-3").lock();
                    assertThat(server.command("INFO", "keyspace")).as("keys land in database 3").contains("db3:keys=");
                    baton.lock("in-db-3").unlock();
                });
    }

    @Test
    void aServerByUrlWithItsPassword() {
        String url = "redis://:" + DATA_PASSWORD + "@" + secured.host() + ":" + secured.port() + "/1";
        runner.withPropertyValues("spring.data.redis.url=" + url).run(context -> {
            takesALock(context);
            Baton baton = context.getBean(Baton.class);
            // The url reaches Baton as written: Baton's parser takes the password from it.
            assertThat(baton.config().uri()).isEqualTo(url);
            assertThat(baton.config().password()).isEmpty();
            assertThat(baton.toString()).doesNotContain(DATA_PASSWORD);
            assertThat(baton.config().toString()).doesNotContain(DATA_PASSWORD);
        });
    }

    @Test
    void anAclUserWithUsernameAndPassword() throws IOException {
        List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", "starter-user", "reset", "on",
                ">" + ACL_PASSWORD));
        args.addAll(documentedAclRule());
        server.command(args.toArray(String[]::new));
        try {
            runner.withPropertyValues("spring.data.redis.host=" + server.host(),
                    "spring.data.redis.port=" + server.port(), "spring.data.redis.username=starter-user",
                    "spring.data.redis.password=" + ACL_PASSWORD).run(context -> {
                        takesALock(context);
                        assertThat(context.getBean(Baton.class).config().username()).contains("starter-user");
                        assertThat(context.getBean(Baton.class).health().isUp()).isTrue();
                    });
        } finally {
            server.command("ACL", "DELUSER", "starter-user");
        }
    }

    @Test
    void aWrongPasswordFailsTheStartWithoutQuotingIt() {
        runner.withPropertyValues("spring.data.redis.host=" + secured.host(),
                "spring.data.redis.port=" + secured.port(), "spring.data.redis.password=not-the-Password-1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().message().containsIgnoringCase("password");
                    assertThat(allMessages(context.getStartupFailure())).doesNotContain("not-the-Password-1");
                });
    }

    @Test
    void sentinelWithPasswordsForTheSentinelsAndTheDataNodes() {
        String nodes = sentinels.sentinels().stream().map(s -> s.host() + ":" + s.port())
                .collect(Collectors.joining(","));
        runner.withPropertyValues("spring.data.redis.sentinel.master=" + sentinels.masterName(),
                "spring.data.redis.sentinel.nodes=" + nodes,
                "spring.data.redis.sentinel.password=" + SENTINEL_PASSWORD,
                "spring.data.redis.password=" + DATA_PASSWORD).run(context -> {
                    takesALock(context);
                    Baton baton = context.getBean(Baton.class);
                    assertThat(baton.config().uri()).startsWith("redis-sentinel://")
                            .endsWith("#" + sentinels.masterName());
                    assertThat(baton.config().sentinelPassword()).isPresent();
                    assertThat(baton.health().topology()).isEqualTo("sentinel");
                });
    }

    @Test
    void sentinelWithoutAMasterNameFailsTheStartNamingTheProperty() {
        String nodes = sentinels.sentinels().stream().map(s -> s.host() + ":" + s.port())
                .collect(Collectors.joining(","));
        // Boot's own Lettuce configuration rejects this too, in its words; the starter names the property itself
        // where Boot's Redis auto-configuration is not in the application.
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.sentinel.nodes=" + nodes,
                "spring.data.redis.password=" + DATA_PASSWORD).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(allMessages(context.getStartupFailure()))
                            .contains("spring.data.redis.sentinel.master").doesNotContain(DATA_PASSWORD);
                });
    }

    @Test
    void aClusterByItsNodes() {
        String nodes = cluster.masters().stream().map(n -> n.host() + ":" + n.port())
                .collect(Collectors.joining(","));
        runner.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes).run(context -> {
            takesALock(context);
            Baton baton = context.getBean(Baton.class);
            assertThat(baton.config().clusterSeeds()).hasSize(cluster.masters().size());
            assertThat(baton.health().topology()).isEqualTo("cluster");
            for (int i = 0; i < 20; i++) { // names spread over every master's slots
                DistributedLock lock = baton.lock("spread-" + i);
                assertThat(lock.tryLock()).isTrue();
                lock.unlock();
            }
        });
    }

    @Test
    void tlsWithAClientCertificateFromAPemSslBundle() {
        runner.withPropertyValues("spring.ssl.bundle.pem.redis.truststore.certificate=" + tls.caCertificate(),
                "spring.ssl.bundle.pem.redis.keystore.certificate=" + tls.clientCertificate(),
                "spring.ssl.bundle.pem.redis.keystore.private-key=" + tls.clientKey(),
                "spring.data.redis.ssl.bundle=redis",
                "spring.data.redis.host=" + tlsServer.host(), "spring.data.redis.port=" + tlsServer.port())
                .run(context -> {
                    takesALock(context);
                    Baton baton = context.getBean(Baton.class);
                    assertThat(baton.config().uri()).startsWith("rediss://");
                    assertThat(baton.config().sslOptions()).as("built from the bundle").isPresent();
                });
    }

    @Test
    void tlsEnabledWithoutABundleUsesTheJvmTrustStoreWhichDoesNotKnowThisCa() {
        // The kit's private CA is not in the JVM's trust store: the start fails, saying why.
        runner.withPropertyValues("spring.data.redis.ssl.enabled=true", "baton.command-timeout=2s",
                "spring.data.redis.host=" + tlsServer.host(), "spring.data.redis.port=" + tlsServer.port())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(allMessages(context.getStartupFailure())).as("TLS was tried, with the JVM's trust store")
                            .contains("TLS certificate that is not trusted");
                });
    }

    @Test
    void withoutBootsRedisAutoConfigurationThePropertiesAreReadDirectly() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=redis://:" + DATA_PASSWORD + "@" + secured.host() + ":"
                        + secured.port() + "/2")
                .run(context -> {
                    takesALock(context);
                    assertThat(context.getBean(Baton.class).config().uri()).endsWith("/2");
                });
    }

    /** Boot's Redis auto-configuration in, then excluded (the starter reads spring.data.redis.* itself). */
    private List<ApplicationContextRunner> bothPaths() {
        return List.of(runner, new ApplicationContextRunner().withConfiguration(
                AutoConfigurations.of(SslAutoConfiguration.class, BatonAutoConfiguration.class)));
    }

    @Test
    void sentinelWithTheDataNodesPasswordAndDatabaseInTheUrl() {
        // As in Boot, the sentinels name the master, and the url gives its credentials and database (not its host).
        String nodes = sentinels.sentinels().stream().map(s -> s.host() + ":" + s.port())
                .collect(Collectors.joining(","));
        for (ApplicationContextRunner path : bothPaths()) {
            path.withPropertyValues("spring.data.redis.url=redis://:" + DATA_PASSWORD + "@127.0.0.1:1/4",
                    "spring.data.redis.sentinel.master=" + sentinels.masterName(),
                    "spring.data.redis.sentinel.nodes=" + nodes,
                    "spring.data.redis.sentinel.password=" + SENTINEL_PASSWORD).run(context -> {
                        takesALock(context);
                        Baton baton = context.getBean(Baton.class);
                        assertThat(baton.config().uri()).startsWith("redis-sentinel://")
                                .endsWith("/4#" + sentinels.masterName());
                        assertThat(baton.config().password()).as("the url's, in the uri").isEmpty();
                        assertThat(baton.toString()).doesNotContain(DATA_PASSWORD);
                        baton.lock("in-db-4").lock();
                        assertThat(sentinels.master().command("INFO", "keyspace")).contains("db4:keys=");
                        baton.lock("in-db-4").unlock();
                    });
        }
    }

    @Test
    void aClusterByItsNodesBesideAUrl() {
        String nodes = cluster.masters().stream().map(n -> n.host() + ":" + n.port())
                .collect(Collectors.joining(","));
        for (ApplicationContextRunner path : bothPaths()) {
            path.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
                    "spring.data.redis.cluster.nodes=" + nodes).run(context -> {
                        takesALock(context);
                        assertThat(context.getBean(Baton.class).config().clusterSeeds())
                                .hasSize(cluster.masters().size()).allMatch(seed -> seed.startsWith("redis://"));
                    });
        }
    }

    @Test
    void aRedisUrlWithAnSslBundleIsTls() {
        for (ApplicationContextRunner path : bothPaths()) {
            path.withPropertyValues("spring.ssl.bundle.pem.redis.truststore.certificate=" + tls.caCertificate(),
                    "spring.ssl.bundle.pem.redis.keystore.certificate=" + tls.clientCertificate(),
                    "spring.ssl.bundle.pem.redis.keystore.private-key=" + tls.clientKey(),
                    "spring.data.redis.ssl.bundle=redis",
                    "spring.data.redis.url=redis://" + tlsServer.host() + ":" + tlsServer.port() + "/1")
                    .run(context -> {
                        takesALock(context);
                        assertThat(context.getBean(Baton.class).config().uri())
                                .isEqualTo("rediss://" + tlsServer.host() + ":" + tlsServer.port() + "/1");
                    });
        }
    }

    @Test
    void sslEnabledFalseTurnsANamedBundleOffAsInBoot() {
        // Boot uses a bundle only while ssl.enabled (which defaults to true once a bundle is named) is on; Baton
        // reads the properties the same way with or without Boot's Redis auto-configuration. A plain server: TLS
        // would fail the start.
        for (ApplicationContextRunner path : bothPaths()) {
            path.withPropertyValues("spring.ssl.bundle.pem.redis.truststore.certificate=" + tls.caCertificate(),
                    "spring.data.redis.ssl.bundle=redis", "spring.data.redis.ssl.enabled=false",
                    "baton.command-timeout=2s",
                    "spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
                    .run(context -> {
                        takesALock(context);
                        Baton baton = context.getBean(Baton.class);
                        assertThat(baton.config().uri()).startsWith("redis://");
                        assertThat(baton.config().sslOptions()).isEmpty();
                    });
        }
    }

    /** The rule docs/acl.md gives Baton's user, read from the document, so the starter is tested on what it says. */
    private static List<String> documentedAclRule() throws IOException {
        String prefix = "ACL SETUSER baton reset on >CHANGE-ME ";
        return Files.readAllLines(Path.of("..", "docs", "acl.md")).stream().map(String::trim)
                .filter(line -> line.startsWith(prefix)).findFirst()
                .map(line -> List.of(line.substring(prefix.length()).split(" ")))
                .orElseThrow(() -> new AssertionError("docs/acl.md has no ACL SETUSER line"));
    }

    static String allMessages(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t).append('\n');
        }
        return text.toString();
    }
}

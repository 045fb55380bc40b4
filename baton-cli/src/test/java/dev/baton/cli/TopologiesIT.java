package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Lease;
import dev.baton.cli.support.BatonProcess;
import dev.baton.test.RedisBinary;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import dev.baton.test.TlsFiles;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command line on Sentinel, on a Cluster and over TLS: the same commands, reached through each topology's
 * addresses and options.
 */
class TopologiesIT {
    private static final Duration LONG = Duration.ofSeconds(60);

    @Test
    void behindSentinelInspectListAndUnlockReachTheMaster() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
             Baton baton = Baton.connect(BatonConfig.builder().uri(group.sentinelUri()).build())) {
            Lease lease = baton.lock("sentinel-job").acquire(LONG);
            Map<String, String> env = Map.of("BATON_REDIS_URI", group.sentinelUri());
            BatonProcess inspect = BatonProcess.run(env, "inspect", "sentinel-job");
            assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
            assertThat(inspect.stdout()).contains("plain lock 'sentinel-job': held")
                    .contains(Long.toString(lease.fencingToken()));
            BatonProcess list = BatonProcess.run(env, "list");
            assertThat(list.stdout()).containsPattern("lock\\s+sentinel-job\\s+active");
            BatonProcess unlock = BatonProcess.run(env, "unlock", "sentinel-job", "--force", "--yes");
            assertThat(unlock.exitCode()).as(unlock.toString()).isZero();
            lease.lost().get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void overTlsTheCommandsTrustTheGivenCaAndPresentTheClientCertificate() throws Exception {
        TlsFiles tls = TlsFiles.generate();
        try (RedisServer server = RedisServer.startTls(tls, List.of("--tls-auth-clients", "yes"));
             Baton baton = Baton.connect(BatonConfig.builder().uri(server.uri())
                     .trustedCertificates(tls.caCertificate())
                     .clientCertificate(tls.clientCertificate(), tls.clientKey()).build())) {
            Lease lease = baton.lock("tls-job").acquire(LONG);
            BatonProcess inspect = BatonProcess.run(Map.of(), "inspect", "tls-job", "--redis", server.uri(),
                    "--cacert", tls.caCertificate().toString(), "--cert", tls.clientCertificate().toString(),
                    "--key", tls.clientKey().toString());
            assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
            assertThat(inspect.stdout()).contains("plain lock 'tls-job': held")
                    .contains(Long.toString(lease.fencingToken()));
            BatonProcess untrusted = BatonProcess.run(Map.of(), "inspect", "tls-job", "--redis", server.uri(),
                    "--timeout", "2s");
            assertThat(untrusted.exitCode()).as(untrusted.toString()).isIn(2, 69);
            assertThat(untrusted.stderr()).startsWith("baton: ").doesNotContain("\tat ");
            lease.release();
        }
    }

    @Test
    void onAClusterListScansEveryMasterAndInspectReadsTheNamesSlot() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(RedisBinary.locate(), 3);
             Baton baton = Baton.connect(BatonConfig.builder().cluster(cluster.seedUris().toArray(String[]::new))
                     .build())) {
            // Names chosen to land on different masters (their hash tags differ).
            for (String name : new String[] {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}) {
                baton.lock(name).acquire(LONG);
            }
            String seeds = String.join(",", cluster.seedUris());
            BatonProcess list = BatonProcess.run(Map.of(), "list", "--cluster", seeds, "--json");
            assertThat(list.exitCode()).as(list.toString()).isZero();
            for (String name : new String[] {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}) {
                assertThat(list.stdout()).contains("{\"kind\":\"lock\",\"name\":\"" + name + "\",\"active\":true}");
            }
            BatonProcess inspect = BatonProcess.run(Map.of(), "inspect", "delta", "--cluster", seeds);
            assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
            assertThat(inspect.stdout()).contains("plain lock 'delta': held");
        }
    }
}

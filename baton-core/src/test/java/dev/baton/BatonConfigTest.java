package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.test.TlsFiles;
import io.lettuce.core.SslOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings checked against each other when built, before any connection; defaults that follow other settings. */
class BatonConfigTest {

    @Test
    void theRateLimitTimeoutDefaultsTo500MillisOrTheShorterCommandTimeout() {
        assertThat(BatonConfig.builder().uri("redis://h").build().rateLimitTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(BatonConfig.builder().uri("redis://h").commandTimeout(Duration.ofMillis(200)).build()
                .rateLimitTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(BatonConfig.builder().uri("redis://h").rateLimitTimeout(Duration.ofMillis(50)).build()
                .rateLimitTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").commandTimeout(Duration.ofSeconds(1))
                .rateLimitTimeout(Duration.ofSeconds(2)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rateLimitTimeout (PT2S) must not be longer than commandTimeout (PT1S)");
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").rateLimitTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rateLimitTimeout must be positive");
    }

    @Test
    void theFairnessThresholdDefaultsToTwoSecondsIsZeroForOffAndOtherwiseAtLeastAMillisecond() {
        assertThat(BatonConfig.builder().uri("redis://h").build().fairnessThreshold()).isEqualTo(Duration.ofSeconds(2));
        assertThat(BatonConfig.builder().uri("redis://h").fairnessThreshold(Duration.ZERO).build()
                .fairnessThreshold()).isZero();
        assertThat(BatonConfig.builder().uri("redis://h").fairnessThreshold(Duration.ofMillis(1)).build().toString())
                .contains("fairnessThreshold=PT0.001S");
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").fairnessThreshold(Duration.ofMillis(-1))
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fairnessThreshold must be zero (off) or at least 1 ms: PT-0.001S");
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").fairnessThreshold(Duration.ofNanos(999_999))
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fairnessThreshold");
        assertThatThrownBy(() -> BatonConfig.builder().fairnessThreshold(null))
                .isInstanceOf(NullPointerException.class).hasMessage("fairnessThreshold");
    }

    @Test
    void aClusterIsGivenBySeedsAloneAndTheirCredentialsNeverShow() {
        BatonConfig config = BatonConfig.builder().cluster("redis://:s3cret@n1:7000", "redis://:s3cret@n2:7001")
                .build();
        assertThat(config.clusterSeeds()).hasSize(2);
        assertThat(config.uri()).isEqualTo("redis://:s3cret@n1:7000");
        assertThat(config.toString()).contains("cluster=[redis://***@n1:7000, redis://***@n2:7001]")
                .doesNotContain("s3cret");

        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").cluster("redis://n1").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give one of uri(...), cluster(...) or redlock(...), not several");
        assertThatThrownBy(() -> BatonConfig.builder().cluster("redis-sentinel://s1#m").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not redis-sentinel://");
        assertThatThrownBy(() -> BatonConfig.builder().cluster("redis://n1", "rediss://n2").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same scheme");
        assertThatThrownBy(() -> BatonConfig.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("uri is required");
    }

    @Test
    void tlsFilesAreCheckedWhenBuiltAndNamedByTheirSetting(@TempDir Path dir) throws IOException {
        TlsFiles tls = TlsFiles.generate(dir.resolve("tls"));
        BatonConfig config = BatonConfig.builder().uri("rediss://h").trustedCertificates(tls.caCertificate())
                .clientCertificate(tls.clientCertificate(), tls.clientKey()).build();
        assertThat(config.trustedCertificates()).contains(tls.caCertificate());
        assertThat(config.clientCertificate()).contains(tls.clientCertificate());
        assertThat(config.clientKey()).contains(tls.clientKey());
        assertThat(config.toString()).contains("trustedCertificates=" + tls.caCertificate());

        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").trustedCertificates(tls.caCertificate())
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustedCertificates and clientCertificate are for TLS: use a rediss://");
        Path missing = dir.resolve("missing.pem");
        assertThatThrownBy(() -> BatonConfig.builder().uri("rediss://h").trustedCertificates(missing).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("trustedCertificates file " + missing + " does not exist");
        assertThatThrownBy(() -> BatonConfig.builder().uri("rediss://h").trustedCertificates(dir).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not a regular file");
        assertThatThrownBy(() -> BatonConfig.builder().uri("rediss://h").trustedCertificates(tls.serverKey()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trustedCertificates file " + tls.serverKey() + " holds no certificate");
        assertThatThrownBy(() -> BatonConfig.builder().uri("rediss://h")
                .clientCertificate(tls.clientCertificate(), tls.clientCertificate()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientCertificate private key file " + tls.clientCertificate()
                        + " holds no private key");

        String keyBody = "MHcCAQEEIFakeKeyMaterialThatMustNeverBeQuotedInAnyMessage";
        Path traditional = Files.writeString(dir.resolve("rsa.key"),
                "-----BEGIN RSA PRIVATE KEY-----\n" + keyBody + "\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> BatonConfig.builder().uri("rediss://h")
                .clientCertificate(tls.clientCertificate(), traditional).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("traditional format").hasMessageContaining("openssl pkcs8 -topk8 -nocrypt")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(keyBody));
        Path encrypted = Files.writeString(dir.resolve("encrypted.key"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + keyBody + "\n-----END ENCRYPTED PRIVATE KEY-----\n");
        assertThatThrownBy(() -> BatonConfig.builder().uri("rediss://h")
                .clientCertificate(tls.clientCertificate(), encrypted).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is encrypted")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(keyBody));
    }

    @Test
    void applicationSslOptionsNeedTlsAndReplaceTheFiles() {
        SslOptions options = SslOptions.builder().jdkSslProvider().build();
        assertThat(BatonConfig.builder().uri("rediss://h").sslOptions(options).build().sslOptions()).contains(options);
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").sslOptions(options).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sslOptions is for TLS");
        TlsFiles tls = TlsFiles.generate();
        assertThatThrownBy(() -> BatonConfig.builder().uri("rediss://h").sslOptions(options)
                .trustedCertificates(tls.caCertificate()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("either sslOptions(...) or trustedCertificates(...)");
    }

    @Test
    void sentinelCredentialsGoWithASentinelUriAndNeverShow() {
        char[] secret = "sentinel-s3cret".toCharArray();
        BatonConfig config = BatonConfig.builder().uri("redis-sentinel://s1,s2#m").password("data-s3cret".toCharArray())
                .sentinelUsername("watcher").sentinelPassword(secret).build();
        java.util.Arrays.fill(secret, '*'); // copied: the caller may clear its array
        assertThat(config.sentinelPassword().orElseThrow().get()).containsExactly("sentinel-s3cret".toCharArray());
        assertThat(config.sentinelUsername()).contains("watcher");
        assertThat(config.toString()).contains("sentinelUsername=***", "sentinelPassword=***")
                .doesNotContain("s3cret").doesNotContain("watcher");
        assertThat(BatonConfig.builder().uri("rediss-sentinel://s1#m").build().toString())
                .contains("rediss-sentinel://s1#m");

        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").sentinelPassword("x".toCharArray()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinelUsername and sentinelPassword are for a redis-sentinel://");
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis-sentinel://s1#m").sentinelUsername("watcher")
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinelUsername needs a password");
    }

    @Test
    void redlockTakesAnOddNumberOfAtLeastThreeDistinctMasters() {
        BatonConfig config = BatonConfig.builder().redlock("redis://a", "redis://b:6380", "redis://c/2").build();
        assertThat(config.redlockMasters()).containsExactly("redis://a", "redis://b:6380", "redis://c/2");
        assertThat(config.uri()).as("the first master").isEqualTo("redis://a");
        assertThat(config.clusterSeeds()).isEmpty();
        assertThat(BatonConfig.builder().redlock("redis://a", "redis://b", "redis://c", "redis://d", "redis://e")
                .build().redlockMasters()).hasSize(5);
        assertThat(BatonConfig.builder().uri("redis://h").build().redlockMasters()).isEmpty();

        for (String[] masters : new String[][] {{"redis://a"}, {"redis://a", "redis://b"},
                {"redis://a", "redis://b", "redis://c", "redis://d"}}) {
            assertThatThrownBy(() -> BatonConfig.builder().redlock(masters).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("redlock needs an odd number of masters, at least 3")
                    .hasMessageEndingWith("got " + masters.length);
        }
        assertThatThrownBy(() -> BatonConfig.builder().redlock().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri is required");
        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://a", null, "redis://c"))
                .isInstanceOf(NullPointerException.class).hasMessage("masterUris[1]");

        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://a", "redis://b", "redis://a:6379").build())
                .as("the default port is the same port").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redlock masters must be distinct servers");
        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://a/0", "redis://b", "redis://a/1").build())
                .as("two databases of one server are one server").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("distinct servers");
        assertThat(BatonConfig.builder().redlock("redis://a:7000", "redis://a:7001", "redis://a:7002").build()
                .redlockMasters()).as("one host, three servers").hasSize(3);
    }

    @Test
    void redlockGoesAloneWithPlainMastersOfOneSchemeAndOneKindOfCredentials() {
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").redlock("redis://a", "redis://b", "redis://c")
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("give one of uri(...), cluster(...) or redlock(...), not several");
        assertThatThrownBy(() -> BatonConfig.builder().cluster("redis://n1")
                .redlock("redis://a", "redis://b", "redis://c").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("give one of uri(...), cluster(...) or redlock(...), not several");

        for (String[] masters : new String[][] {{"redis-sentinel://s1#m", "redis://b", "redis://c"},
                {"redis://a", "redis://b", "rediss-sentinel://s1,s2#m"}}) {
            assertThatThrownBy(() -> BatonConfig.builder().redlock(masters).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not redis-sentinel://");
        }
        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://a", "rediss://b", "redis://c").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same scheme")
                .hasMessageEndingWith("rediss://b");
        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://a", "redis://:s3cret@b", "redis://c")
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credentials or none")
                .hasMessageContaining("redis://***@b").satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://:s3cret@a", "redis://:s3cret@b", "redis://c")
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credentials or none")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://:s3cret@a", "redis://:s3cret@b",
                "redis://:s3cret@c").password("x".toCharArray()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credentials are given twice");

        assertThat(BatonConfig.builder().redlock("rediss://a", "rediss://b", "rediss://c").build().redlockMasters())
                .hasSize(3);
        assertThat(BatonConfig.builder().redlock("redis://a", "redis://b", "redis://c").username("u")
                .password("p".toCharArray()).build().password()).as("the builder's credentials for every master")
                .isPresent();
        assertThatThrownBy(() -> BatonConfig.builder().redlock("redis://a", "redis://b", "redis://c")
                .replicaAcknowledged(1, Duration.ofMillis(100)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAcknowledged(...) is not supported with redlock(...)");
    }

    @Test
    void theDriftFactorIsFromZeroToBelowOneHalf() {
        assertThat(redlock().build().redlockDriftFactor()).isEqualTo(0.01);
        assertThat(redlock().redlockDriftFactor(0).build().redlockDriftFactor()).isZero();
        assertThat(redlock().redlockDriftFactor(0.49).build().redlockDriftFactor()).isEqualTo(0.49);
        for (double bad : new double[] {-0.01, 0.5, 1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> redlock().redlockDriftFactor(bad).build())
                    .as("drift factor %s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("redlockDriftFactor must be at least 0 and below 0.5: " + bad);
        }
    }

    @Test
    void theLongestRedlockLeaseDefaultsToAMinuteOrTheWatchdogLeaseAndIsNotShorterThanIt() {
        assertThat(redlock().build().redlockMaxLease()).isEqualTo(Duration.ofMinutes(1));
        assertThat(redlock().watchdogLease(Duration.ofSeconds(10)).build().redlockMaxLease())
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(redlock().watchdogLease(Duration.ofMinutes(2)).build().redlockMaxLease())
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(redlock().redlockMaxLease(Duration.ofMinutes(5)).build().redlockMaxLease())
                .isEqualTo(Duration.ofMinutes(5));
        assertThat(redlock().redlockMaxLease(Duration.ofSeconds(30)).build().redlockMaxLease())
                .as("as long as the watchdog lease is enough").isEqualTo(Duration.ofSeconds(30));

        assertThatThrownBy(() -> redlock().redlockMaxLease(Duration.ofSeconds(10)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redlockMaxLease (PT10S) must not be shorter than watchdogLease (PT30S)");
        assertThatThrownBy(() -> redlock().watchdogLease(Duration.ofMinutes(2)).redlockMaxLease(Duration.ofMinutes(1))
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redlockMaxLease (PT1M) must not be shorter than watchdogLease (PT2M)");
        assertThatThrownBy(() -> redlock().redlockMaxLease(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redlockMaxLease must be positive");
        assertThatThrownBy(() -> redlock().redlockMaxLease(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redlockMaxLease must be positive");
        assertThatThrownBy(() -> BatonConfig.builder().redlockMaxLease(null))
                .isInstanceOf(NullPointerException.class).hasMessage("maxLease");

        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").redlockMaxLease(Duration.ofMinutes(5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("redlockMaxLease is for redlock(...) masters");
        assertThatThrownBy(() -> BatonConfig.builder().cluster("redis://n1").redlockMaxLease(Duration.ofMinutes(5))
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redlockMaxLease is for");
    }

    @Test
    void toStringShowsTheRedlockMastersWithoutTheirCredentials() {
        String shown = BatonConfig.builder().redlock("redis://:s3cret@a:6379", "redis://user:s3cret@b:6380",
                "redis://:s3cret@c").redlockDriftFactor(0.02).build().toString();
        assertThat(shown).contains("redlock=[redis://***@a:6379, redis://***@b:6380, redis://***@c]",
                "redlockDriftFactor=0.02", "redlockMaxLease=PT1M").doesNotContain("s3cret").doesNotContain("user")
                .doesNotContain("uri=");

        String withPassword = redlock().password("s3cret".toCharArray()).build().toString();
        assertThat(withPassword).contains("redlock=[redis://a, redis://b, redis://c]", "password=***")
                .doesNotContain("s3cret");
        assertThat(BatonConfig.builder().uri("redis://h").build().toString()).doesNotContain("redlock");
    }

    private static BatonConfig.Builder redlock() {
        return BatonConfig.builder().redlock("redis://a", "redis://b", "redis://c");
    }
}

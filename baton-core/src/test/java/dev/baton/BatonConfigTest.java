package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

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
    void aClusterIsGivenBySeedsAloneAndTheirCredentialsNeverShow() {
        BatonConfig config = BatonConfig.builder().cluster("redis://:s3cret@n1:7000", "redis://:s3cret@n2:7001")
                .build();
        assertThat(config.clusterSeeds()).hasSize(2);
        assertThat(config.uri()).isEqualTo("redis://:s3cret@n1:7000");
        assertThat(config.toString()).contains("cluster=[redis://***@n1:7000, redis://***@n2:7001]")
                .doesNotContain("s3cret");

        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").cluster("redis://n1").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("either uri(...) or cluster(...)");
        assertThatThrownBy(() -> BatonConfig.builder().cluster("redis-sentinel://s1#m").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not redis-sentinel://");
        assertThatThrownBy(() -> BatonConfig.builder().cluster("redis://n1", "rediss://n2").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same scheme");
        assertThatThrownBy(() -> BatonConfig.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("uri is required");
    }
}

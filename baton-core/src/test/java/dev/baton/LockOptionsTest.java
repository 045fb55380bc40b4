package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How a lock's options and its Baton's default decide on replica acknowledgement; no Redis involved. */
class LockOptionsTest {
    private static final ReplicaAcknowledgement TWO = new ReplicaAcknowledgement(2, Duration.ofMillis(300));

    @Test
    void defaultsFollowTheBatonAndOptionsOverrideItEitherWay() {
        BatonConfig plain = BatonConfig.builder().uri("redis://h").build();
        BatonConfig acknowledged = BatonConfig.builder().uri("redis://h").replicaAcknowledged(2, Duration.ofMillis(300))
                .build();
        assertThat(plain.replicaAcknowledgement()).isEmpty();
        assertThat(acknowledged.replicaAcknowledgement()).contains(TWO);
        assertThat(acknowledged.toString()).contains("replicaAcknowledged=2 within PT0.3S");

        assertThat(LockOptions.defaults().overridesReplicaAcknowledgement()).isFalse();
        assertThat(LockOptions.defaults().replicaAcknowledgement(plain)).isEmpty();
        assertThat(LockOptions.defaults().replicaAcknowledgement(acknowledged)).contains(TWO);

        LockOptions one = LockOptions.replicaAcknowledged(1, Duration.ofSeconds(1));
        assertThat(one.overridesReplicaAcknowledgement()).isTrue();
        assertThat(one.replicaAcknowledgement(plain)).contains(new ReplicaAcknowledgement(1, Duration.ofSeconds(1)));
        assertThat(one.replicaAcknowledgement(acknowledged)).isEqualTo(one.replicaAcknowledgement());

        LockOptions off = LockOptions.unacknowledged();
        assertThat(off.overridesReplicaAcknowledgement()).isTrue();
        assertThat(off.replicaAcknowledgement()).isEmpty();
        assertThat(off.replicaAcknowledgement(acknowledged)).isEmpty();
        assertThat(one.withoutReplicaAcknowledgement()).isEqualTo(off).hasSameHashCodeAs(off);
        assertThat(off.toString()).contains("none");
        assertThat(LockOptions.defaults().toString()).contains("the Baton's");
    }

    @Test
    void theExceptionSaysHowManyOfHowManyWithinWhatTimeout() {
        ReplicaAcknowledgementException e = new ReplicaAcknowledgementException("orders:42", 1, 2,
                Duration.ofMillis(250));
        assertThat(e).isInstanceOf(BatonException.class)
                .hasMessage("lock 'orders:42' was acquired on the master, but only 1 of the 2 required replicas "
                        + "acknowledged it within PT0.25S; the acquisition was undone, the caller does not hold the "
                        + "lock");
        assertThat(e.lockName()).isEqualTo("orders:42");
        assertThat(e.acknowledged()).isEqualTo(1);
        assertThat(e.required()).isEqualTo(2);
        assertThat(e.timeout()).isEqualTo(Duration.ofMillis(250));
    }
}

package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The slot function without a server; {@link RedisClusterTest} checks it against {@code CLUSTER KEYSLOT}. */
class HashSlotTest {

    @Test
    void crc16IsTheXmodemVariant() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(HashSlot.crc16(check, 0, check.length)).isEqualTo(0x31C3); // the variant's published check value
        assertThat(HashSlot.of("123456789")).isEqualTo(0x31C3 & 16383);
        assertThat(HashSlot.of("")).isZero();
    }

    @Test
    void aHashTagSelectsWhatIsHashed() {
        assertThat(HashSlot.of("{user1000}.following")).isEqualTo(HashSlot.of("{user1000}.followers"))
                .isEqualTo(HashSlot.of("user1000"));
        assertThat(HashSlot.of("foo{bar}{zap}")).isEqualTo(HashSlot.of("bar"));
        assertThat(HashSlot.of("foo{{bar}}zap")).isEqualTo(HashSlot.of("{bar"));
        // An empty tag or an unclosed brace is no tag: the whole key is hashed.
        assertThat(HashSlot.of("foo{}{bar}")).isNotEqualTo(HashSlot.of("bar"));
        byte[] whole = "foo{}{bar}".getBytes(StandardCharsets.UTF_8);
        assertThat(HashSlot.of("foo{}{bar}")).isEqualTo(HashSlot.crc16(whole, 0, whole.length) & 16383);
        byte[] unclosed = "{abc".getBytes(StandardCharsets.UTF_8);
        assertThat(HashSlot.of("{abc")).isEqualTo(HashSlot.crc16(unclosed, 0, unclosed.length) & 16383);
    }

    @Test
    void textIsHashedAsUtf8() {
        assertThat(HashSlot.of("clé")).isEqualTo(HashSlot.of("clé".getBytes(StandardCharsets.UTF_8)));
        assertThat(HashSlot.COUNT).isEqualTo(16384);
        assertThatThrownBy(() -> HashSlot.of((String) null)).isInstanceOf(NullPointerException.class);
    }
}

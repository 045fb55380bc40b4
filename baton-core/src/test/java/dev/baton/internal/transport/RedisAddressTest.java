package dev.baton.internal.transport;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonConfig;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Baton's own reading of Redis URIs: every part checked, and no error ever quoting the user info. */
class RedisAddressTest {

    @Test
    void readsEveryPart() {
        RedisAddress a = RedisAddress.parse("rediss://app:s%40cr%2Fet@cache.example:6380/3?clientName=orders"
                + "&verifyPeer=CA");
        assertThat(a.tls()).isTrue();
        assertThat(a.hosts()).containsExactly(new RedisAddress.HostAndPort("cache.example", 6380));
        assertThat(a.database()).isEqualTo(3);
        assertThat(a.username()).contains("app");
        assertThat(new String(a.password().orElseThrow())).isEqualTo("s@cr/et");
        assertThat(a.clientName()).contains("orders");
        assertThat(a.verifyPeer()).isEqualTo("CA");
        assertThat(a.toString()).isEqualTo("rediss://***@cache.example:6380/3").doesNotContain("app");
    }

    @Test
    void defaultsAndShortForms() {
        RedisAddress plain = RedisAddress.parse("redis://localhost");
        assertThat(plain.hosts()).containsExactly(new RedisAddress.HostAndPort("localhost", 6379));
        assertThat(plain.database()).isZero();
        assertThat(plain.hasCredentials()).isFalse();
        assertThat(plain.verifyPeer()).isEqualTo("FULL");

        RedisAddress passwordOnly = RedisAddress.parse("redis://hunter2@h:1/");
        assertThat(passwordOnly.username()).isEmpty();
        assertThat(new String(passwordOnly.password().orElseThrow())).isEqualTo("hunter2");
        RedisAddress defaultUser = RedisAddress.parse("REDIS://:pw@h");
        assertThat(defaultUser.username()).isEmpty();
        assertThat(new String(defaultUser.password().orElseThrow())).isEqualTo("pw");

        RedisAddress v6 = RedisAddress.parse("redis://[::1]:7000?db=2");
        assertThat(v6.hosts()).containsExactly(new RedisAddress.HostAndPort("::1", 7000));
        assertThat(v6.database()).isEqualTo(2);
        assertThat(v6.endpoint()).isEqualTo("[::1]:7000");

        RedisAddress sentinel = RedisAddress.parse("redis-sentinel://:pw@s1,s2:26380/1#orders-master");
        assertThat(sentinel.sentinel()).isTrue();
        assertThat(sentinel.hosts()).containsExactly(new RedisAddress.HostAndPort("s1", 26379),
                new RedisAddress.HostAndPort("s2", 26380));
        assertThat(sentinel.master()).contains("orders-master");
        assertThat(sentinel.database()).isEqualTo(1);
        assertThat(sentinel.endpoint()).isEqualTo("sentinel s1:26379,s2:26380 (master orders-master)");
    }

    /** The URIs of the issue, and their kin: the message says what is wrong, never a fragment of the password. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "redis://:p@ss/w#rd:1@h:6379        | an '@' follows a '/', '?' or '#'      | p@ss/w#rd:1, ss/w, w#rd, rd:1",
            "redis://:p@ss#secret@h:6379        | an '@' follows a '/', '?' or '#'      | p@ss, ss#secret, secret",
            "redis://:p@ss:w?rd@h:6379          | an '@' follows a '/', '?' or '#'      | p@ss, ss:w, w?rd",
            "redis://u:p@ss@h:abc               | port must be a number from 1 to 65535 | p@ss, u:p",
            "redis://localhost:abc              | port must be a number from 1 to 65535, was 'abc' | ",
            "redis://localhost:0                | port must be a number from 1 to 65535 | ",
            "redis://localhost:65536            | port must be a number from 1 to 65535 | ",
            "redis://:pw@:6379                  | uri has no host                      | pw",
            "redis://:sec%zzret@h               | '%' that is not followed by two hex digits | sec, zzret",
            "redis://:pw@h st:1                 | uri host contains ' '                | pw",
            "redis://h/db1                      | database must be a number            | ",
            "redis://:pa$$@h/x                  | database must be a number            | pa$$",
            "redis://h#frag                     | only redis-sentinel:// takes         | ",
            "redis://h?timeout=5s               | uri option 'timeout' is not supported | ",
            "rediss://h?verifyPeer=maybe        | verifyPeer must be FULL, CA or NONE  | ",
            "http://:pw@h                       | must start with redis://, rediss://   | pw",
            "localhost:6379                     | must start with redis://, rediss://   | ",
            "redis-sentinel://:pw@s1:26379      | needs the master name                | pw",
            "redis://:pw@[::1                   | without its closing ']'              | pw",
    })
    void malformedUrisSayWhatIsWrongAndNeverQuoteTheUserInfo(String uri, String says, String secrets) {
        assertThatThrownBy(() -> RedisAddress.parse(uri)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(says)
                .satisfies(e -> {
                    for (String secret : secrets == null ? List.<String>of() : List.of(secrets.split(",\\s*"))) {
                        assertThat(e.getMessage()).doesNotContain(secret);
                    }
                });
        // Through the public builder, the same.
        assertThatThrownBy(() -> BatonConfig.builder().uri(uri).build())
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessageContaining(says);
    }

    @Test
    void errorsThatTheUserInfoMayCauseHintAtPercentEncoding() {
        for (String uri : List.of("redis://:p@ss/w#rd:1@h:6379", "redis://:sec%zzret@h", "redis://:pw@h st:1")) {
            assertThatThrownBy(() -> RedisAddress.parse(uri)).hasMessageContaining("percent-encode")
                    .hasMessageContaining("%40 for @").hasMessageContaining("password(...)");
        }
    }

    @Test
    void anUnencodedAtInThePasswordIsReadAsMeantSinceOnlyTheLastAtEndsTheUserInfo() {
        RedisAddress a = RedisAddress.parse("redis://app:p@ss@h:6379");
        assertThat(new String(a.password().orElseThrow())).isEqualTo("p@ss");
        assertThat(a.hosts()).containsExactly(new RedisAddress.HostAndPort("h", 6379));
    }

    @Test
    void redactionHidesEverythingUpToTheLastAt() {
        assertThat(RedisAddress.redacted("redis://:p@ss#secret@h:6379")).isEqualTo("redis://***@h:6379");
        assertThat(RedisAddress.redacted("redis://h:6379")).isEqualTo("redis://h:6379");
        assertThat(RedisAddress.redacted("junk@h")).isEqualTo("***@h");
    }

    @Test
    void credentialsInTheBuilderAndNotTwice() {
        char[] secret = "s3cret".toCharArray();
        BatonConfig config = BatonConfig.builder().uri("redis://h").username("app").password(secret).build();
        secret[0] = 'X'; // the builder kept its own copy
        assertThat(new String(config.password().orElseThrow().get())).isEqualTo("s3cret");
        assertThat(config.username()).isEqualTo(Optional.of("app"));
        assertThat(config.toString()).doesNotContain("s3cret").doesNotContain("app").contains("password=***");

        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://:pw@h").password("x".toCharArray()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credentials are given twice")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pw"));
        assertThatThrownBy(() -> BatonConfig.builder().uri("redis://h").username("app").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("username needs a password");
    }
}

package dev.baton.internal.primitives;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonAdmin.Kind;
import dev.baton.internal.engine.LockKeys;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How a listing reads keys back into objects, and matches names with Redis's glob syntax. */
class ObjectKeyTest {

    @Test
    void everyKindsKeysNameTheirObjectAndSayWhetherItIsActive() {
        assertThat(ObjectKey.parse("baton", "baton:lock:{a}")).contains(new ObjectKey(Kind.LOCK, "a", true));
        assertThat(ObjectKey.parse("baton", "baton:lock:{a}:token")).contains(new ObjectKey(Kind.LOCK, "a", false));
        assertThat(ObjectKey.parse("baton", "baton:fair:{a}:queue")).contains(new ObjectKey(Kind.FAIR, "a", true));
        assertThat(ObjectKey.parse("baton", "baton:rw:{a}:readers"))
                .contains(new ObjectKey(Kind.READ_WRITE, "a", true));
        assertThat(ObjectKey.parse("baton", "baton:semaphore:{a}")).as("only the total")
                .contains(new ObjectKey(Kind.SEMAPHORE, "a", false));
        assertThat(ObjectKey.parse("baton", "baton:semaphore:{a}:holders"))
                .contains(new ObjectKey(Kind.SEMAPHORE, "a", true));
        assertThat(ObjectKey.parse("baton", "baton:rate:{a}:0s:totals"))
                .contains(new ObjectKey(Kind.RATE_LIMITER, "a", true));
        assertThat(ObjectKey.parse("baton", "baton:latch:{a}")).contains(new ObjectKey(Kind.LATCH, "a", true));
        assertThat(ObjectKey.parse("baton", "baton:election:{a}")).contains(new ObjectKey(Kind.ELECTION, "a", true));
    }

    @Test
    void escapedNamesComeBackAsWrittenAndForeignKeysAreNoObjects() {
        for (String name : new String[] {"{", "}", "%", "%7B", "a}b{c", "%25%7D"}) {
            String key = LockKeys.of("ns", name).lock();
            assertThat(ObjectKey.parse("ns", key)).as(key).contains(new ObjectKey(Kind.LOCK, name, true));
        }
        assertThat(ObjectKey.parse("baton", "other:lock:{a}")).isEmpty();
        assertThat(ObjectKey.parse("baton", "baton:redlock:admitted")).isEmpty();
        assertThat(ObjectKey.parse("baton", "baton:spoon:{a}")).isEmpty();
        assertThat(ObjectKey.parse("baton", "baton:lock:{a")).isEmpty();
        assertThat(ObjectKey.parse("baton", "baton:lock:a")).isEqualTo(Optional.empty());
    }

    @Test
    void globsFollowRedisSyntax() {
        assertThat(new Glob("*").matches("")).isTrue();
        assertThat(new Glob("jobs:*").matches("jobs:nightly")).isTrue();
        assertThat(new Glob("jobs:*").matches("job")).isFalse();
        assertThat(new Glob("?1").matches("e1")).isTrue();
        assertThat(new Glob("[ef]1").matches("f1")).isTrue();
        assertThat(new Glob("[^ef]1").matches("f1")).isFalse();
        assertThat(new Glob("[a-c]x").matches("bx")).isTrue();
        assertThat(new Glob("a\\*").matches("a*")).isTrue();
        assertThat(new Glob("a\\*").matches("ab")).isFalse();
        assertThat(new Glob("[ab").matches("a")).as("an unclosed set matches nothing").isFalse();
        assertThat(new Glob("*a*b*").matches("xxaxxbxx")).isTrue();
    }
}

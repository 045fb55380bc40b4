package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.spring.aop.SelfInvocationScanner.SelfCall;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The bytecode scanner on shapes javac produces: calls on {@code this} are found whatever the arguments (wide values,
 * branches, switches, try blocks, lambdas), and calls on other references, {@code super} calls and recursion are not.
 */
class SelfInvocationScannerTest {

    private static final Set<String> GUARDED = Set.of("guarded(JDLjava/lang/String;)Ljava/lang/String;");

    @SuppressWarnings("unused")
    static class Shapes {
        Shapes other;

        String guarded(long a, double b, String c) {
            return c;
        }

        String wideArguments() {
            return guarded(1L << 40, 2.5, "x");
        }

        String afterABranch(boolean flag, String s) {
            return guarded(flag ? 1L : 2L, flag ? 1.0 : 2.0, flag ? s : s.trim());
        }

        String inASwitch(int k) {
            switch (k) {
                case 1:
                    return "one";
                case 7:
                    return guarded(k, k, "seven");
                default:
                    return "many";
            }
        }

        String inATryBlock() {
            try {
                return guarded(0, 0, "try");
            } catch (IllegalStateException e) {
                return e.getMessage();
            }
        }

        Supplier<String> inALambda() {
            return () -> guarded(0, 0, "lambda");
        }

        String inALoop(List<String> items) {
            String last = "";
            for (String item : items) {
                last = guarded(item.length(), 0, item);
            }
            return last;
        }
    }

    @SuppressWarnings("unused")
    static class NotSelf {
        NotSelf other;

        String guarded(long a, double b, String c) {
            return c;
        }

        String onAField() {
            return other.guarded(1, 2, "x");
        }

        String onAParameter(NotSelf that) {
            return that.guarded(1, 2, "x");
        }

        String onAChoice(boolean flag) {
            return (flag ? this : other).guarded(1, 2, "x");
        }

        String recursion(long a, double b, String c) {
            return guarded(a, b, c); // a call on this from another method: reported
        }

        String countdown(int n) {
            return n == 0 ? "" : countdown(n - 1); // already inside the proxy's advice
        }
    }

    static class Sub extends NotSelf {
        @Override
        String guarded(long a, double b, String c) {
            return super.guarded(a, b, c);
        }
    }

    @Test
    void callsOnThisAreFoundInEveryShape() {
        List<SelfCall> calls = SelfInvocationScanner.scan(Shapes.class, GUARDED);

        assertThat(calls).extracting(SelfCall::caller).containsExactlyInAnyOrder("wideArguments", "afterABranch",
                "inASwitch", "inATryBlock", "a lambda in inALambda", "inALoop");
        assertThat(calls).extracting(SelfCall::callee).containsOnly("guarded");
    }

    @Test
    void callsOnOtherReferencesAndSuperCallsAreNotReported() {
        assertThat(SelfInvocationScanner.scan(NotSelf.class, GUARDED)).extracting(SelfCall::caller)
                .containsExactly("recursion");
        assertThat(SelfInvocationScanner.scan(Sub.class, GUARDED)).isEmpty();
    }

    @Test
    void aMethodCallingItselfIsNotReported() {
        assertThat(SelfInvocationScanner.scan(NotSelf.class, Set.of("countdown(I)Ljava/lang/String;"))).isEmpty();
    }
}

package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.spring.aop.SelfInvocationScanner.SelfCall;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The bytecode scanner on shapes javac produces: calls on {@code this} are found whatever the arguments (wide values,
 * branches, switches, try blocks, lambdas), and whatever form {@code this} takes (a method reference, an anonymous,
 * local or inner class, a local variable, a final field); calls on other references, {@code super} calls and
 * recursion are not.
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

    /** The shape of {@code guarded}, for method references to it. */
    interface Guard {
        String apply(long a, double b, String c);
    }

    /** The same, with the receiver as an argument: an unbound method reference. */
    interface UnboundGuard {
        String apply(NotSelf on, long a, double b, String c);
    }

    /** {@code this} in the forms that reach a method without a visible {@code this.}: each call is found. */
    @SuppressWarnings({"unused", "UnnecessaryLocalVariable"})
    static class OtherFormsOfThis {
        private final OtherFormsOfThis me = this;

        String guarded(long a, double b, String c) {
            return c;
        }

        Guard methodReference() {
            return this::guarded;
        }

        Guard methodReferenceThroughALocal() {
            OtherFormsOfThis self = this;
            return self::guarded;
        }

        Runnable anonymousClass() {
            return new Runnable() {
                @Override
                public void run() {
                    guarded(0, 0, "anonymous");
                }
            };
        }

        Runnable anonymousClassOverALocal() {
            OtherFormsOfThis self = this;
            return new Runnable() {
                @Override
                public void run() {
                    self.guarded(0, 0, "anonymous");
                }
            };
        }

        String localClass() {
            class Helper {
                String go() {
                    return guarded(0, 0, "local");
                }
            }
            return new Helper().go();
        }

        class Inner {
            String go() {
                return guarded(0, 0, "inner");
            }

            class Deeper {
                Supplier<String> go() {
                    return () -> guarded(0, 0, "deeper");
                }
            }
        }

        String local() {
            OtherFormsOfThis self = this;
            return self.guarded(0, 0, "local");
        }

        String localInALoop(List<String> items) {
            OtherFormsOfThis self = this;
            String last = "";
            for (String item : items) {
                last = self.guarded(item.length(), 0, item);
            }
            return last;
        }

        String localInACatch(String number) {
            OtherFormsOfThis self = this;
            try {
                return Integer.toString(Integer.parseInt(number));
            } catch (NumberFormatException e) {
                return self.guarded(0, 0, number);
            }
        }

        String castLocal() {
            Object self = this;
            return ((OtherFormsOfThis) self).guarded(0, 0, "cast");
        }

        Supplier<String> lambdaOverALocal() {
            OtherFormsOfThis self = this;
            return () -> self.guarded(0, 0, "lambda");
        }

        String finalField() {
            return me.guarded(0, 0, "field");
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

        Guard referenceOnAField() {
            return other::guarded;
        }

        UnboundGuard unboundReference() {
            return NotSelf::guarded;
        }

        String localReassigned(boolean flag) {
            NotSelf self = this;
            if (flag) {
                self = other;
            }
            return self.guarded(1, 2, "x");
        }

        String localReassignedInALoop(List<String> items) {
            NotSelf self = this;
            String last = "";
            for (String item : items) {
                last = self.guarded(1, 2, item); // this in the first round only: not on every path
                self = other;
            }
            return last;
        }

        String slotReused() {
            {
                NotSelf self = this;
                self.hashCode();
            }
            NotSelf another = other;
            return another.guarded(1, 2, "x");
        }

        Runnable anonymousClassOnAField() {
            return new Runnable() {
                @Override
                public void run() {
                    other.guarded(1, 2, "x");
                }
            };
        }

        Runnable anonymousClassOverAParameter(NotSelf that) {
            return new Runnable() {
                @Override
                public void run() {
                    that.guarded(1, 2, "x");
                }
            };
        }

        Supplier<String> lambdaOverAParameter(NotSelf that) {
            return () -> that.guarded(1, 2, "x");
        }

        static String onAStaticParameter(NotSelf that) {
            return that.guarded(1, 2, "x");
        }
    }

    /** A field that is not final may be set by anything (Spring's injection among them): it is not followed. */
    @SuppressWarnings("unused")
    static class MutableField {
        private MutableField self = this;

        String guarded(long a, double b, String c) {
            return c;
        }

        String viaTheField() {
            return self.guarded(1, 2, "x");
        }
    }

    /** The proxy injected through the constructor (@Lazy) into a final field: a call through it is no self-call. */
    @SuppressWarnings("unused")
    static class ConstructorInjected {
        private final ConstructorInjected self;

        ConstructorInjected(ConstructorInjected self) {
            this.self = self;
        }

        String guarded(long a, double b, String c) {
            return c;
        }

        String viaTheField() {
            return self.guarded(1, 2, "x");
        }
    }

    /** A final field that one constructor sets to this and another to a different instance holds this on no path. */
    @SuppressWarnings("unused")
    static class FinalFieldNotAlwaysThis {
        private final FinalFieldNotAlwaysThis self;

        FinalFieldNotAlwaysThis() {
            self = this;
        }

        FinalFieldNotAlwaysThis(FinalFieldNotAlwaysThis proxy) {
            self = proxy;
        }

        String guarded(long a, double b, String c) {
            return c;
        }

        String viaTheField() {
            return self.guarded(1, 2, "x");
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
    void otherFormsOfThisAreFound() {
        List<SelfCall> calls = SelfInvocationScanner.scan(OtherFormsOfThis.class, GUARDED);

        assertThat(calls).extracting(SelfCall::caller).containsExactlyInAnyOrder(
                "a method reference in methodReference",
                "a method reference in methodReferenceThroughALocal",
                "run in the anonymous class SelfInvocationScannerTest$OtherFormsOfThis$1 (in anonymousClass)",
                "run in the anonymous class SelfInvocationScannerTest$OtherFormsOfThis$2 (in "
                        + "anonymousClassOverALocal)",
                "go in the local class SelfInvocationScannerTest$OtherFormsOfThis$1Helper (in localClass)",
                "go in the inner class SelfInvocationScannerTest$OtherFormsOfThis$Inner",
                "a lambda in go in the inner class SelfInvocationScannerTest$OtherFormsOfThis$Inner$Deeper",
                "local", "localInALoop", "localInACatch", "castLocal", "a lambda in lambdaOverALocal",
                "finalField");
        assertThat(calls).extracting(SelfCall::callee).containsOnly("guarded");
    }

    @Test
    void callsOnOtherReferencesAndSuperCallsAreNotReported() {
        assertThat(SelfInvocationScanner.scan(NotSelf.class, GUARDED)).extracting(SelfCall::caller)
                .containsExactly("recursion");
        assertThat(SelfInvocationScanner.scan(Sub.class, GUARDED)).isEmpty();
        assertThat(SelfInvocationScanner.scan(MutableField.class, GUARDED)).isEmpty();
        assertThat(SelfInvocationScanner.scan(FinalFieldNotAlwaysThis.class, GUARDED)).isEmpty();
        assertThat(SelfInvocationScanner.scan(ConstructorInjected.class, GUARDED)).isEmpty();
    }

    @Test
    void aMethodCallingItselfIsNotReported() {
        assertThat(SelfInvocationScanner.scan(NotSelf.class, Set.of("countdown(I)Ljava/lang/String;"))).isEmpty();
    }
}

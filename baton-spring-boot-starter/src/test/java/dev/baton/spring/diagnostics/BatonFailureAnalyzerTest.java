package dev.baton.spring.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonConfig;
import dev.baton.BatonException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.web.server.WebServerException;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Which failures the analyzer describes, and what it leaves to Boot's other analyzers. */
class BatonFailureAnalyzerTest {

    private final BatonFailureAnalyzer analyzer = new BatonFailureAnalyzer();

    @Test
    void aMissingAclPermissionPointsAtTheAclPage() {
        BatonException refused = new BatonException("Redis at h:6379 refused a command for lack of permission "
                + "(NOPERM ...): the Redis user needs the ACL rule in docs/acl.md");

        FailureAnalysis analysis = analyzer.analyze(new BeanCreationException("baton", "failed", refused));

        assertThat(analysis.getDescription()).contains("refused a command for lack of permission");
        assertThat(analysis.getAction()).contains("docs/acl.md");
        assertThat(analysis.getCause()).isSameAs(refused);
    }

    @Test
    void anIllegalArgumentOfBatonConfigIsDescribedAndOneOfTheApplicationIsNot() {
        IllegalArgumentException batons = null;
        try {
            BatonConfig.builder().uri("redis://localhost:0").build();
        } catch (IllegalArgumentException e) {
            batons = e;
        }
        assertThat(analyzer.analyze(new BeanCreationException("baton", "failed", batons)).getDescription())
                .contains("port must be a number");

        IllegalArgumentException notBatons = null;
        try {
            Integer.parseInt("not a number"); // thrown by the JDK, as by any code that is not Baton's
        } catch (NumberFormatException e) {
            notBatons = e;
        }
        assertThat(analyzer.analyze(new BeanCreationException("orders", "failed", notBatons))).isNull();
    }

    @Test
    void bootsOwnPropertyFailuresAreLeftToBoot() {
        // Boot's exceptions are left to Boot's analyzers even with Baton's underneath.
        WebServerException bootsOwn = new WebServerException("could not start", new BatonException("underneath"));

        assertThat(analyzer.analyze(new BeanCreationException("baton", "failed", bootsOwn))).isNull();
    }
}

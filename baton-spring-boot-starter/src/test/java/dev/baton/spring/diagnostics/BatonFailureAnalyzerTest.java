package dev.baton.spring.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonConfig;
import dev.baton.BatonException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
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

        assertThat(analyzer.analyze(new BeanCreationException("orders", "failed",
                new IllegalArgumentException("not ours")))).isNull();
    }

    @Test
    void bootsOwnPropertyFailuresAreLeftToBoot() {
        InvalidConfigurationPropertyValueException bootsOwn = new InvalidConfigurationPropertyValueException(
                "baton.namespace", "a{b}", "no braces");
        bootsOwn.initCause(new BatonException("underneath"));

        assertThat(analyzer.analyze(new BeanCreationException("baton", "failed", bootsOwn))).isNull();
    }
}

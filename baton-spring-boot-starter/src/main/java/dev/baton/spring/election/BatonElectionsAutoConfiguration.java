package dev.baton.spring.election;

import dev.baton.Baton;
import dev.baton.spring.BatonProperties;
import dev.baton.spring.autoconfigure.BatonAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * Joins the elections declared under {@code baton.elections} ({@link ElectionCandidates}) when the context has a
 * {@link Baton}, the auto-configured one or the application's own. With no election declared the bean exists and does
 * nothing, so that the actuator endpoint and {@code @LeaderOnly}'s startup check can always ask it.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass(Baton.class)
@ConditionalOnBean(Baton.class)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonElectionsAutoConfiguration {

    /** Creates the configuration; Spring instantiates it. */
    public BatonElectionsAutoConfiguration() {
    }

    /**
     * The candidacies of the declared elections, started and stopped with the context.
     *
     * @param baton      the Baton the elections run on
     * @param properties {@code baton.elections.*}
     * @param publisher  where leadership events go
     * @return the candidates
     */
    @Bean
    @ConditionalOnMissingBean
    public ElectionCandidates batonElectionCandidates(Baton baton, BatonProperties properties,
                                                      ApplicationEventPublisher publisher) {
        return new ElectionCandidates(baton, properties.getElections(), publisher);
    }
}

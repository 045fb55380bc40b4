package dev.baton.spring.web;

import dev.baton.Baton;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Turns a lock not acquired in time ({@code @DistributedLock}) and Redis unavailable into 503 responses with
 * {@code Retry-After} in Spring MVC and WebFlux applications ({@link UnavailableResponse}), unless
 * {@code baton.web.unavailable-responses=false}, which leaves them to Spring (500); each part backs off when the
 * application defines a bean of the same type.
 */
@AutoConfiguration
@ConditionalOnClass(Baton.class)
@ConditionalOnProperty(prefix = "baton.web", name = "unavailable-responses", havingValue = "true",
        matchIfMissing = true)
public class BatonUnavailableResponsesAutoConfiguration {

    /** Creates the configuration; Spring does. */
    public BatonUnavailableResponsesAutoConfiguration() {
    }

    /** Spring MVC. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
    static class Mvc {

        /**
         * @param adapter provides the message converters
         * @param baton   provides the command timeout
         * @return the resolver
         */
        @Bean
        @ConditionalOnMissingBean
        UnavailableMvcResolver batonUnavailableMvcResolver(ObjectProvider<RequestMappingHandlerAdapter> adapter,
                                                           ObjectProvider<Baton> baton) {
            return new UnavailableMvcResolver(adapter, baton);
        }
    }

    /** Spring WebFlux. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.server.WebExceptionHandler")
    static class WebFlux {

        /**
         * @param codecs write the body
         * @param baton  provides the command timeout
         * @return the handler
         */
        @Bean
        @ConditionalOnMissingBean
        UnavailableWebFluxHandler batonUnavailableWebFluxHandler(ServerCodecConfigurer codecs,
                                                                 ObjectProvider<Baton> baton) {
            return new UnavailableWebFluxHandler(codecs, baton);
        }
    }
}

package dev.baton.spring.web;

import dev.baton.RateLimitExceededException;
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
 * Turns refused {@link dev.baton.spring.RateLimited @RateLimited} calls into 429 responses in Spring MVC and WebFlux
 * applications, unless {@code baton.rate-limit.web-responses=false}; each part backs off when the application defines
 * a bean of the same type.
 */
@AutoConfiguration
@ConditionalOnClass(RateLimitExceededException.class)
@ConditionalOnProperty(prefix = "baton.rate-limit", name = "web-responses", havingValue = "true",
        matchIfMissing = true)
public class BatonWebResponsesAutoConfiguration {

    /** Creates the configuration; Spring does. */
    public BatonWebResponsesAutoConfiguration() {
    }

    /** Spring MVC. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
    static class Mvc {

        /**
         * @param adapter provides the message converters
         * @return the resolver of refusals
         */
        @Bean
        @ConditionalOnMissingBean
        RateLimitExceededMvcResolver batonRateLimitExceededMvcResolver(
                ObjectProvider<RequestMappingHandlerAdapter> adapter) {
            return new RateLimitExceededMvcResolver(adapter);
        }
    }

    /** Spring WebFlux. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.server.WebExceptionHandler")
    static class WebFlux {

        /**
         * @param codecs write the body
         * @return the handler of refusals
         */
        @Bean
        @ConditionalOnMissingBean
        RateLimitExceededWebFluxHandler batonRateLimitExceededWebFluxHandler(ServerCodecConfigurer codecs) {
            return new RateLimitExceededWebFluxHandler(codecs);
        }
    }
}

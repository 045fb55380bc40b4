package dev.baton.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Spring MVC: answers a {@link dev.baton.RateLimitExceededException} that reached the dispatcher with
 * {@link RateLimitResponse} (429, {@code Retry-After}, {@code RateLimit}, {@code RateLimit-Policy},
 * {@code application/problem+json}). It runs at the lowest precedence, after Spring's own resolvers, so an
 * application's {@code @ExceptionHandler} for that exception (in the controller or in any {@code @ControllerAdvice})
 * always wins. The body is written with the application's message converters; without one for problem+json the
 * response has the status and headers and no body. Thread-safe.
 */
public final class RateLimitExceededMvcResolver implements HandlerExceptionResolver, Ordered {
    private static final Logger log = LoggerFactory.getLogger(RateLimitExceededMvcResolver.class);

    private final ObjectProvider<RequestMappingHandlerAdapter> adapter;

    /**
     * @param adapter provides the application's message converters, looked up at the first refusal
     */
    public RateLimitExceededMvcResolver(ObjectProvider<RequestMappingHandlerAdapter> adapter) {
        this.adapter = Objects.requireNonNull(adapter, "adapter");
    }

    /** After every other resolver. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
                                         Exception ex) {
        RateLimitResponse answer = RateLimitResponse.of(ex).orElse(null);
        if (answer == null || response.isCommitted()) {
            return null;
        }
        response.setStatus(RateLimitResponse.STATUS.value());
        answer.headers().forEach((name, values) -> values.forEach(v -> response.addHeader(name, v)));
        answer.body().setInstance(URI.create(request.getRequestURI()));
        try {
            write(answer.body(), response);
        } catch (IOException e) {
            log.debug("could not write the 429 body: {}", e.getMessage());
        }
        return new ModelAndView(); // handled: nothing more to render
    }

    @SuppressWarnings("unchecked")
    private void write(ProblemDetail body, HttpServletResponse response) throws IOException {
        RequestMappingHandlerAdapter a = adapter.getIfAvailable();
        List<HttpMessageConverter<?>> converters = a != null ? a.getMessageConverters() : List.of();
        for (HttpMessageConverter<?> converter : converters) {
            if (converter.canWrite(ProblemDetail.class, MediaType.APPLICATION_PROBLEM_JSON)) {
                try (ServletServerHttpResponse out = new ServletServerHttpResponse(response)) {
                    ((HttpMessageConverter<Object>) converter).write(body, MediaType.APPLICATION_PROBLEM_JSON, out);
                }
                return;
            }
        }
    }
}

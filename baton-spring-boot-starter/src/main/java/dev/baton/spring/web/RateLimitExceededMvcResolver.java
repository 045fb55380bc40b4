package dev.baton.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
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
    private final MvcProblemWriter writer;

    /**
     * @param adapter provides the application's message converters, looked up at the first refusal
     */
    public RateLimitExceededMvcResolver(ObjectProvider<RequestMappingHandlerAdapter> adapter) {
        this.writer = new MvcProblemWriter(adapter);
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
        return writer.answer(request, response, answer.headers(), answer.body());
    }
}

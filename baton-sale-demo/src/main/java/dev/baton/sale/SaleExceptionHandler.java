package dev.baton.sale;

import dev.baton.spring.LockNotAcquiredException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the service's own exceptions into RFC 9457 problem responses. It handles nothing else: a rate-limit refusal
 * is answered by the Baton starter (429 with its headers), everything unexpected by Spring Boot.
 */
@RestControllerAdvice(assignableTypes = {ItemController.class, AdminController.class})
public class SaleExceptionHandler {

    /** Creates the handler. */
    public SaleExceptionHandler() {
    }

    /**
     * @param e the exception
     * @return 409 Conflict
     */
    @ExceptionHandler
    public ProblemDetail soldOut(SoldOutException e) {
        return problem(HttpStatus.CONFLICT, "Sold out", e);
    }

    /**
     * @param e the exception
     * @return 404 Not Found
     */
    @ExceptionHandler
    public ProblemDetail unknownItem(UnknownItemException e) {
        return problem(HttpStatus.NOT_FOUND, "No such item", e);
    }

    /**
     * @param e the exception
     * @return 503 Service Unavailable: the lock was lost mid-way; a retry takes it anew
     */
    @ExceptionHandler
    public ProblemDetail staleToken(StaleFencingTokenException e) {
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "Lock lost, nothing written", e);
    }

    /**
     * @param e the exception: the item's lock was not free within {@code baton.lock.wait-time}
     * @return 503 Service Unavailable with {@code Retry-After: 1}: the item is busy, not sold out
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> busy(LockNotAcquiredException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1")
                .body(problem(HttpStatus.SERVICE_UNAVAILABLE, "Busy, try again", e));
    }

    /**
     * @param e the exception; only this service's validation throws it here
     * @return 400 Bad Request
     */
    @ExceptionHandler
    public ProblemDetail invalidArgument(IllegalArgumentException e) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request", e);
    }

    private static ProblemDetail problem(HttpStatus status, String title, RuntimeException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, e.getMessage());
        problem.setTitle(title);
        return problem;
    }
}

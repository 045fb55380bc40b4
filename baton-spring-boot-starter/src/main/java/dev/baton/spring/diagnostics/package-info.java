/**
 * Spring Boot failure analysis of Baton's startup failures: Redis not reachable, credentials or ACL permissions
 * refused, a connection setting that cannot be used, an annotation that cannot work. "APPLICATION FAILED TO START"
 * then says what is wrong and what to do, instead of a chain of {@code BeanCreationException}s.
 */
package dev.baton.spring.diagnostics;

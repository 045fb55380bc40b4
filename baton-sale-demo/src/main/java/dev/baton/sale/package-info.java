/**
 * The "limited stock sale" demo service of the Baton Spring Boot starter: {@code @DistributedLock} per item around a
 * read-then-write of the stock with fencing tokens, {@code @RateLimited} per buyer, a {@code @Scheduled} restock
 * that one instance of a fleet runs per period, and a Swagger UI.
 */
package dev.baton.sale;

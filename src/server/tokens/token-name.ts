// A capture token's name: it becomes the `requester` of every capture the token queues, printed
// on operators' terminals and pages, so the admin CLI and Settings accept the same plain names.
export const TOKEN_NAME = /^[A-Za-z0-9._-]{1,64}$/;
export const TOKEN_NAME_RULE = "1 to 64 letters, digits, dots, dashes or underscores";

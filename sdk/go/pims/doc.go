// Projects, service accounts and their tokens, volume sizes and app secrets of PIMS.
package pims

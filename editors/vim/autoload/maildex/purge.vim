" SPDX-License-Identifier: GPL-3.0-or-later
" :MaildexPurge [QUERY] and P on the start page: `maildex purge` of the mail tagged deleted (or of
" QUERY, or of g:maildex_purge_query), only once its plan, a dry run, has been shown and accepted.
" g:Maildex_purge_confirm, a Funcref given the plan (purge's JSON map) that returns 1 to go on,
" replaces Vim's confirm() dialog. maildex keeps every purged message's tags in its purge log
" (maildex-purge(1)); nothing here deletes a file itself.
let s:cpo_save = &cpo
set cpo&vim

function! maildex#purge#run(...) abort
  let l:query = get(a:, 1, '') !=# '' ? [a:1] : (get(g:, 'maildex_purge_query', '') !=# '' ? [g:maildex_purge_query] : [])
  call maildex#transport#run(['purge', '--dry-run', '--format=json'] + l:query,
        \ {'on_exit': {status, out, err -> s:planned(l:query, status, out)}})
endfunction

function! s:planned(query, status, out) abort
  if a:status != 0 " the transport has reported it
    return
  endif
  let l:plan = maildex#util#json(a:out)
  if type(l:plan) != v:t_dict || l:plan.messages + l:plan.kept == 0
    echomsg 'maildex purge: nothing to remove'
    return
  endif
  let l:Ask = get(g:, 'Maildex_purge_confirm', function('s:confirm'))
  if !l:Ask(l:plan)
    echomsg 'maildex purge: nothing was removed'
    return
  endif
  echomsg 'maildex purge...'
  call maildex#transport#run(['purge', '--yes'] + a:query, {'on_exit': function('s:purged')})
endfunction

function! s:confirm(plan) abort
  return confirm(printf('Remove %d messages (%d files, %d bytes) from the disk?', a:plan.messages,
        \ a:plan.files, a:plan.bytes), "&Yes\n&No", 2) == 1
endfunction

" The report's last line when it worked; a failure (a file that could not go) is the transport's.
function! s:purged(status, out, err) abort
  if a:status == 0
    echomsg 'maildex purge: ' . get(a:out, -1, 'done')
  endif
  call maildex#poll#notify()
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save

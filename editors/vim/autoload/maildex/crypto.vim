" SPDX-License-Identifier: GPL-3.0-or-later
" The words notmuch.el puts on a signed or encrypted part's button, from show's sigstatus/encstatus.
let s:cpo_save = &cpo
set cpo&vim

function! maildex#crypto#signature(status) abort
  let l:status = get(a:status, 'status', '')
  let l:who = get(a:status, 'userid', get(a:status, 'email', get(a:status, 'fingerprint', '')))
  if l:status ==# 'good'
    return 'Good signature by: ' . l:who
  elseif l:status ==# 'bad'
    return 'Bad signature (claimed key ID ' . get(a:status, 'keyid', '?') . ')'
  endif
  return 'Unknown key ID ' . get(a:status, 'keyid', '?') . ' or unsupported algorithm'
endfunction

function! maildex#crypto#decryption(status) abort
  return get(a:status, 'status', '') ==# 'good' ? 'Decryption successful' : 'Decryption error'
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
